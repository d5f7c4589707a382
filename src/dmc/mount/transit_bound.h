// A lower bound of the FUSE round trip outside the disk model's clock, from the daemon's probes.
//
// The model's time for a request starts when its handler runs. The caller waits longer: the
// kernel first hands the request (and a write's data) to a worker, and after the reply wakes the
// caller (copying a read's data out). Replying that much before the model's completion makes a
// queue-depth-1 caller see the model's time instead of the model's time plus the round trip.
//
// The amount must never exceed the round trip of the request it is applied to, or the caller
// gets its answer before the profile allows. So it is not learned from callers' traffic (the gap
// between a reply and a thread's next request also holds the caller's own think time, which no
// statistic can separate): the daemon measures the round trip of its own requests through the
// mount (TransitProbe: getattrs with no data, served at once, sent back to back so that they
// find the threads awake, as a caller's tight loop does), and the bound is the smallest round
// trip any probe has seen. A read or write carries data, which only lengthens its trip, so
// the bound holds for every size and direction.
//
// The smallest ever, not of a recent window: load lengthens the typical trip but a single
// request can still get a fast one. A 1.3 s window followed the load up and a fio read with 100
// us of think time then completed 26 us before its service time (load 4-7). The bound only
// falls, at once, when the machine gets faster. It stays 0 until kMinProbes have been recorded:
// the first probe of a new mount waits in the kernel for the FUSE INIT exchange (one measured
// 2.6 ms).
//
// Thread-safe: record() takes a mutex; lower_bound_ns() is one relaxed atomic load (hot path).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

namespace diskcond::mount {

class TransitBound {
 public:
  static constexpr uint64_t kMinProbes = 8;

  // One probe's round trip outside its handler, in ns. Values <= 0 are ignored.
  void record(int64_t transit_ns);
  // The smallest recorded round trip; 0 before kMinProbes.
  int64_t lower_bound_ns() const { return bound_.load(std::memory_order_relaxed); }
  // How many probes were recorded in all.
  uint64_t probes() const { return probes_.load(std::memory_order_relaxed); }

 private:
  std::mutex mu_;
  int64_t smallest_ = 0;  // guarded by mu_; 0 = none yet
  std::atomic<int64_t> bound_{0};
  std::atomic<uint64_t> probes_{0};
};

}  // namespace diskcond::mount
