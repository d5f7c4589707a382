// Keeps the machine's idle CPUs polling while the mount is busy, so that a reply wakes the caller
// sleeping on it within microseconds, as the profile's timing assumes.
//
// Why: a caller at queue depth 1 sleeps while its request is served, and the reply must wake it.
// A CPU that halted when it went idle takes tens of microseconds to run it again (the 2-core VM's
// haltpoll driver with guest_halt_poll_ns 0: 40-60 us), so a Slow SSD's 115.6 us read took 175 us
// and an ideal device of that speed, with no FUSE at all, 167 us. While the kernel's CPU latency
// request (posix/cpu_latency.h) is held at 0 us, idle CPUs poll instead: fio 4 KiB QD1 reads on a
// Slow SSD mount 5,146-5,645 IOPS without it, 7,441-7,798 with it (prediction 8,649); on a SATA
// III SSD mount 8,685-8,811 against 20,011-20,769 (26,657) (docs/conditioner.md "Idle CPUs").
//
// The cost is CPU time: a polling CPU is busy to the host (and to a laptop's battery) whenever it
// has nothing to run. So the request is held only while conditioned requests flow: the first one
// after a quiet spell takes it (off the request's path: the thread below does the system call),
// and it is withdrawn once none has come for kLingerNs. A mount that sees no traffic costs
// nothing. Where the request cannot help (no cpuidle driver: idle CPUs halt whatever is asked,
// posix::cpuidle_driver_present; error() is then ENODEV) or the device cannot be opened (not
// root; no such device) the mount runs as before and status says why (error()).
//
// Thread-safe. busy() is the hot path: one relaxed store and one relaxed load while the request is
// held. Time is the wall clock's (CLOCK_MONOTONIC), not the device's: a stall is not traffic.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "core/clock.h"

namespace diskcond::mount {

// What takes and withdraws the request: the kernel's device, or a fake in tests.
class CpuLatencyHolder {
 public:
  virtual ~CpuLatencyHolder() = default;
  virtual int hold() = 0;  // asks for 0 us; 0, or -errno (nothing is held then)
  virtual void release() = 0;
};
// The kernel's device (posix/cpu_latency.h).
std::unique_ptr<CpuLatencyHolder> cpu_latency_device();

// How long to wait, at `now_ns`, before the request held since traffic stopped at `last_busy_ns`
// is withdrawn: 0 when it is due now (no request for `linger_ns` or more).
int64_t idle_poll_release_in_ns(int64_t now_ns, int64_t last_busy_ns, int64_t linger_ns);

struct IdlePollState {
  bool enabled = false;  // the thread runs: the request can be taken (error == 0)
  int error = 0;         // errno of the device's refusal, which disabled it; 0 = none
  bool held = false;     // held now
  uint64_t holds = 0;    // times taken since start
  int64_t held_ns = 0;   // time held since start (the current hold included)
};

class IdlePoll {
 public:
  static constexpr int64_t kLingerNs = 1'000'000'000;

  // Tries the holder once (hold, then release): on refusal the instance stays disabled and
  // busy() does nothing but a load. `clock` must outlive this; wall time is read from it.
  IdlePoll(const Clock& clock, std::unique_ptr<CpuLatencyHolder> holder,
           int64_t linger_ns = kLingerNs);
  ~IdlePoll();  // stop()
  IdlePoll(const IdlePoll&) = delete;
  IdlePoll& operator=(const IdlePoll&) = delete;

  // A conditioned request arrived or is being answered, at wall time `now_ns`.
  void busy(int64_t now_ns);
  // Withdraws the request and ends the thread. Idempotent.
  void stop();
  IdlePollState state() const;

 private:
  void run();

  const Clock& clock_;
  std::unique_ptr<CpuLatencyHolder> holder_;
  const int64_t linger_ns_;
  int error_ = 0;
  std::atomic<int64_t> last_busy_ns_{0};
  std::atomic<bool> held_{false};
  std::atomic<bool> wanted_{false};  // busy() saw it released and woke the thread
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;      // guarded by mu_
  uint64_t holds_ = 0;         // guarded by mu_
  int64_t held_since_ns_ = 0;  // guarded by mu_
  int64_t held_total_ns_ = 0;  // guarded by mu_; finished holds
  std::thread thread_;
};

}  // namespace diskcond::mount
