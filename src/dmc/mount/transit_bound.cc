#include "dmc/mount/transit_bound.h"

#include <algorithm>

namespace diskcond::mount {

void TransitBound::record(int64_t transit_ns) {
  if (transit_ns <= 0) return;
  std::lock_guard lock(mu_);
  samples_[next_] = transit_ns;
  next_ = (next_ + 1) % kWindow;
  count_ = std::min(count_ + 1, kWindow);
  const uint64_t probes = probes_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (probes >= kMinProbes) {
    bound_.store(*std::min_element(samples_.begin(), samples_.begin() + count_),
                 std::memory_order_relaxed);
  }
}

}  // namespace diskcond::mount
