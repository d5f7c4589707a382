// The daemon's own requests through its mount, to measure the FUSE round trip (TransitBound).
//
// A thread opens the mount's root (O_PATH) and asks for its attributes with
// AT_STATX_FORCE_SYNC, which always reaches the daemon as a getattr. The getattr handler
// recognises the probe thread (ProbeStamp::is_probe) and stamps when it started and when it
// replied; the probe's round trip outside the handler is its syscall's time minus the handler's.
// Such a getattr is never conditioned and carries no data, so its trip is no longer than any
// read's or write's under the same conditions.
//
// Conditions matter more than the path: a request that wakes sleeping threads on idle CPUs takes
// several times as long as one sent while the caller and a worker are awake, as in a caller's
// tight loop. Measured on the 2-core VM: statx 20 ms apart, fastest 17 us; back to back, 4.2 us
// (the fastest of a burst of 8: 5-11 us). A bound taken from lone probes let a
// queue-depth-1 reader's replies come 26 us before the model's time. So each probe is a burst of
// kBurst requests back to back, and every one of them is recorded: the bound is the hot trip.
// One probe every kInterval (one every ms at start, so the bound exists before the first
// workload), some tens of microseconds of CPU each.
//
// The probe holds a descriptor of the mount root while it runs, which would make umount fail
// with EBUSY: pause() before unmounting (it waits for a probe in flight), resume() if the
// unmount failed. stop() while the session loop still serves, or after the FUSE session is
// destroyed (a probe in flight then fails with ENOTCONN); a probe in flight in between would
// wait for an answer that never comes.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "core/clock.h"
#include "dmc/mount/request_arrival.h"
#include "dmc/mount/transit_bound.h"

namespace diskcond::mount {

// What the getattr handler tells the probe about the probe's own request. Lock-free.
struct ProbeStamp {
  std::atomic<pid_t> tid{0};  // the probe thread; 0 = no probe running
  std::atomic<int64_t> arrival_ns{0};
  std::atomic<bool> kernel_sent{false};  // arrival_ns is the kernel's send (request_arrival.h)
  std::atomic<int64_t> replied_ns{0};
  std::atomic<int> requests{0};  // probe requests handled since the probe reset it

  bool is_probe(pid_t caller) const {
    const pid_t t = tid.load(std::memory_order_relaxed);
    return t != 0 && t == caller;
  }
  // Handler side: the probe's request arrived at `arrival`, its reply goes out at `replied`.
  void handled(Arrival arrival, int64_t replied) {
    arrival_ns.store(arrival.ns, std::memory_order_relaxed);
    kernel_sent.store(arrival.kernel_sent, std::memory_order_relaxed);
    replied_ns.store(replied, std::memory_order_relaxed);
    requests.fetch_add(1, std::memory_order_release);
  }
};

class TransitProbe {
 public:
  // One probe per second once started: the bound only falls, and back-to-back requests find the
  // fast trip in the first bursts; every 20 ms would be 400 getattrs a second for nothing (no
  // measurable change in bench/metadata_ab.sh's rates either way, 2026-12-02).
  static constexpr int64_t kIntervalNs = 1'000'000'000;
  static constexpr int kStartBurst = 16;  // probes 1 ms apart at start
  static constexpr int kBurst = 8;        // requests per probe, back to back

  TransitProbe(std::string mount_point, ProbeStamp& stamp, TransitBound& bound, const Clock& clock);
  ~TransitProbe();  // stop()
  TransitProbe(const TransitProbe&) = delete;
  TransitProbe& operator=(const TransitProbe&) = delete;

  void start();
  // From now on a request whose arrival is not the kernel's send is not recorded. REQUIRES: before
  // start(), when data requests arrive at their kernel send (send_stamps.h): a trip measured from
  // a worker's read also holds the hand-over that such an arrival already counts, and would make
  // their replies early.
  void require_kernel_sent() { require_kernel_sent_ = true; }
  // Waits for a probe in flight to end and starts no other until resume().
  void pause();
  void resume();
  // Ends the thread. REQUIRES: no probe can be left waiting for an answer (the session loop is
  // running, or the FUSE connection is closed).
  void stop();

 private:
  void run();
  // One probe: kBurst requests; records each one's round trip. False when none reached this
  // mount.
  bool probe();
  // One request: the round trip outside the handler, -1 when it did not reach this mount, or
  // kUnstamped when its arrival was not the kernel's send and require_kernel_sent() was asked.
  static constexpr int64_t kUnstamped = -2;
  int64_t request_once(int fd);

  const std::string mount_point_;
  ProbeStamp& stamp_;
  TransitBound& bound_;
  const Clock& clock_;
  std::mutex mu_;
  std::condition_variable changed_;
  bool paused_ = false;     // guarded by mu_
  bool in_flight_ = false;  // guarded by mu_
  bool stopping_ = false;   // guarded by mu_
  bool require_kernel_sent_ = false;
  std::thread thread_;
};

}  // namespace diskcond::mount
