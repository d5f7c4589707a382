#include "rawio/arrival_schedule.h"

#include <cmath>

namespace diskcond::rawio {

ArrivalSchedule::ArrivalSchedule(Arrival arrival, double rate_per_sec, unsigned workers,
                                 unsigned worker, uint64_t seed)
    : arrival_(arrival),
      ns_per_arrival_(1e9 / rate_per_sec),
      workers_(workers),
      index_(worker),
      // Not the offsets' seeding (seed * prime + worker), so arrivals and offsets are unrelated.
      rng_((seed ^ 0xa5a1'5eedull) * 0x9e3779b97f4a7c15ull + worker) {}

int64_t ArrivalSchedule::next_ns() {
  if (arrival_ == Arrival::kFixed) {
    // Doubles hold every nanosecond count up to 2^53 ns (104 days) exactly.
    auto t = static_cast<int64_t>(static_cast<double>(index_) * ns_per_arrival_);
    index_ += workers_;
    return t;
  }
  // Inverse transform: -ln(1 - u) is exponential with mean 1 for u uniform in [0, 1); 53 bits
  // of u, so 1 - u is never 0.
  double u = static_cast<double>(rng_.next() >> 11) * 0x1.0p-53;
  poisson_ns_ += -std::log1p(-u) * ns_per_arrival_ * workers_;
  return static_cast<int64_t>(poisson_ns_);
}

}  // namespace diskcond::rawio
