// Data requests reach the model in the order the kernel sent them.
//
// The kernel numbers requests as it queues them (the header's `unique` grows with each), and
// workers take them off /dev/fuse in that order, but two workers race from there to the model:
// the pieces of a large direct read (4 MiB is four 1 MiB requests sent together) could reach it
// out of order, and an HDD then seeks back for each piece that was overtaken (7200 HDD, fio 4 MiB
// QD1 reads: 26 of 694 requests overtaken, 137.9 MiB/s for 150; ModelCounters::overtaken).
//
// So session_io.cc announces each read or write request as a worker reads it, the conditioner's
// first begin() for it waits (yielding the CPU, never sleeping) until every earlier-sent data
// request has reached the model, and the request retires once its own commands are submitted, its
// ticket is finished or its worker reads again (a request that never reaches the model holds no
// one up after that). The wait is bounded (kMaxWaitNs): a worker descheduled for longer costs
// its successors no more than that, and the order is then as it was before. The wait lies inside
// the model's time, whose clock started at the request's arrival.
//
// Thread-safe; one mutex over a small set (the requests read and not yet retired).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <set>

namespace diskcond::mount {

class ModelOrder {
 public:
  static constexpr int64_t kMaxWaitNs = 200'000;

  // A worker read data request `unique`.
  void announce(uint64_t unique);
  // `unique` reached the model, or never will. Idempotent.
  void retire(uint64_t unique);
  // Whether a request sent before `unique` was announced and has not retired.
  bool earlier_pending(uint64_t unique) const;
  // Yields the CPU while earlier_pending(unique), until `now()` (nanoseconds) has moved
  // `max_wait_ns` past its first value. False if it gave up.
  bool await_turn(uint64_t unique, const std::function<int64_t()>& now,
                  int64_t max_wait_ns = kMaxWaitNs) const;
  uint64_t gave_up() const;  // waits that ended at the bound, for status and tests

 private:
  mutable std::mutex mu_;
  std::set<uint64_t> announced_;  // guarded by mu_
  mutable uint64_t gave_up_ = 0;  // guarded by mu_
};

// The data request this thread announced and has not retired (0: none).
void set_announced_request(uint64_t unique);
uint64_t announced_request();

}  // namespace diskcond::mount
