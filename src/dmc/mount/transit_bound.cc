#include "dmc/mount/transit_bound.h"

namespace diskcond::mount {

void TransitBound::record(int64_t transit_ns) {
  if (transit_ns <= 0) return;
  std::lock_guard lock(mu_);
  if (smallest_ == 0 || transit_ns < smallest_) smallest_ = transit_ns;
  const uint64_t probes = probes_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (probes >= kMinProbes) bound_.store(smallest_, std::memory_order_relaxed);
}

}  // namespace diskcond::mount
