// ArrivalSchedule: when an open-loop worker should issue each of its transfers.
//
// The rate is the test's total over all workers. Worker w of N takes every N-th arrival of the
// whole schedule, as the transfer count is shared, so the workers' schedules merged are the
// schedule the rate asks for:
//   fixed:   arrival i of the whole schedule is at i / rate (exactly, to the nanosecond); worker w
//            gets i = w, w + N, w + 2N, ...
//   poisson: each worker draws exponential gaps of mean N / rate from its own generator, seeded
//            from (seed, worker); N independent Poisson processes of rate r / N merge into one of
//            rate r. The same seed gives the same times.
// Pure: no clock, no I/O. Times are nanoseconds after the test's start.
#pragma once

#include <cstdint>

#include "rawio/offsets.h"
#include "rawio/test_spec.h"

namespace diskcond::rawio {

class ArrivalSchedule {
 public:
  // REQUIRES: rate_per_sec > 0, workers >= 1, worker < workers.
  ArrivalSchedule(Arrival arrival, double rate_per_sec, unsigned workers, unsigned worker,
                  uint64_t seed);

  // The intended issue time of this worker's next transfer, nanoseconds after the start; never
  // decreasing.
  int64_t next_ns();

 private:
  Arrival arrival_;
  double ns_per_arrival_;  // 1e9 / rate: the whole schedule's mean gap
  unsigned workers_;
  uint64_t index_;         // fixed: the next arrival's number in the whole schedule
  double poisson_ns_ = 0;  // poisson: the last arrival's time, unrounded
  Random64 rng_;
};

}  // namespace diskcond::rawio
