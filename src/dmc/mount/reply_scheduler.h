// Sends FUSE replies at given times, from one thread, so that no FUSE worker ever sleeps.
//
// A worker does its backing I/O, then calls at(due, reply): a reply already due runs at once on
// the worker; a later one is queued on a min-heap that the scheduler thread serves with timed
// condition-variable waits on CLOCK_MONOTONIC (1 ns timer slack). Whatever the reply needs (read
// data buffers included) lives in the Reply closure until it has run.
//
// Wake-up compensation: a timed wait returns some tens of microseconds after its deadline (more
// on a busy VM, and more the longer the CPU slept). The thread tracks that lateness per band of
// wait length (WakeAhead: moving averages, capped at kMaxWakeAheadNs) and asks to wake that much
// before the due time, then spins the rest, so replies go out at their due time instead of
// always late. A reply is never sent before its due time (the one
// exception: drain(), when the mount goes away). The spin lasts at most kMaxWakeAheadNs.
//
// The clock may stand still (mount/device_clock.h: the device's clock during a stall): due times
// are on it, and the thread's timed waits end at the wall time it reaches them
// (Clock::wall_ns_when); while it is held until released the thread waits for poke().
//
// Every reply's lateness (the time it started to be sent minus its due time) goes into a
// LatenessHistogram, for status.
//
// Locking: mu_ is held while the thread reads the clock, which takes the fault rules' mutex while
// a stall rule is live (DeviceClock; that mutex is a leaf); replies run with no lock held.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "dmc/mount/lateness_histogram.h"
#include "dmc/mount/wake_ahead.h"

namespace diskcond::mount {

// What the Conditioner hands a reply and its due time to: the ReplyScheduler, or a fake in tests
// that records them.
class ReplyTimer {
 public:
  using Reply = std::function<void()>;
  virtual ~ReplyTimer() = default;
  // Runs `reply` once, at `due_ns` or as soon after as possible, never before. Thread-safe.
  virtual void at(int64_t due_ns, Reply reply) = 0;
};

class ReplyScheduler final : public ReplyTimer {
 public:
  // `clock` must be CLOCK_MONOTONIC-based (MonotonicClock) unless the test never waits.
  explicit ReplyScheduler(const Clock& clock);
  ~ReplyScheduler();  // drain()
  ReplyScheduler(const ReplyScheduler&) = delete;
  ReplyScheduler& operator=(const ReplyScheduler&) = delete;

  // ReplyTimer. A reply already due runs at once on the caller.
  void at(int64_t due_ns, Reply reply) override;
  // The clock has changed its mind (a stall released or removed): the thread looks again at when
  // the next reply is due.
  void poke();
  // Sends every queued reply now (in due order) and stops the thread; later at() calls reply at
  // once. Used when the mount goes away: nothing acknowledged may be left unsent.
  void drain();
  size_t queued() const;
  // Worst lateness seen (actual send - due), for the tests and status.
  int64_t max_lateness_ns() const;
  // Percentiles of every reply's lateness so far (those sent at once by at() included).
  LatenessSummary lateness() const { return lateness_.summary(); }
  // The wake-up compensation of the band last learned from (WakeAhead::last_ns).
  int64_t wake_ahead_ns() const;

  static constexpr int64_t kMaxWakeAheadNs = 150'000;

 private:
  struct Entry {
    int64_t due_ns;
    uint64_t seq;  // keeps equal due times in submission order
    Reply reply;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.due_ns != b.due_ns ? a.due_ns > b.due_ns : a.seq > b.seq;
    }
  };
  void run();
  // Busy-waits until clock_ reaches `due_ns`, for at most kMaxWakeAheadNs of wall time; returns
  // the time it then read. Tests with a FakeClock only use past-due replies.
  int64_t spin_until(int64_t due_ns) const;

  const Clock& clock_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Entry> heap_;                // guarded by mu_
  uint64_t next_seq_ = 0;                  // guarded by mu_
  bool stopping_ = false;                  // guarded by mu_
  int64_t max_lateness_ns_ = 0;            // guarded by mu_
  WakeAhead wake_ahead_{kMaxWakeAheadNs};  // guarded by mu_
  LatenessHistogram lateness_;             // lock-free
  std::thread thread_;
};

}  // namespace diskcond::mount
