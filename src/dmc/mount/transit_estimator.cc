#include "dmc/mount/transit_estimator.h"

#include <algorithm>

namespace diskcond::mount {

void TransitEstimator::replied(pid_t caller, int64_t sent_ns) {
  std::lock_guard lock(mu_);
  if (callers_.size() >= kMaxCallers && !callers_.contains(caller)) callers_.clear();
  int64_t& last = callers_[caller].last_reply_ns;
  last = std::max(last, sent_ns);
}

int64_t TransitEstimator::arrived(pid_t caller, Op op, int64_t arrival_ns) {
  if (op != Op::kRead && op != Op::kWrite) return 0;
  const auto direction = static_cast<size_t>(op);
  std::lock_guard lock(mu_);
  auto it = callers_.find(caller);
  if (it == callers_.end()) return 0;
  Window& w = it->second.windows[direction];
  const int64_t gap = arrival_ns - it->second.last_reply_ns;
  if (it->second.last_reply_ns != 0 && gap > 0 && gap <= kMaxGapNs) {
    w.gaps[w.next] = gap;
    w.next = (w.next + 1) % kWindow;
    w.count = std::min(w.count + 1, kWindow);
    std::array<int64_t, kWindow> sorted = w.gaps;
    auto median = sorted.begin() + static_cast<long>((w.count - 1) / 2);
    std::nth_element(sorted.begin(), median, sorted.begin() + static_cast<long>(w.count));
    w.lead = *median;
  }
  last_lead_[direction] = w.lead;
  return w.lead;
}

int64_t TransitEstimator::last_lead_ns(Op op) const {
  if (op != Op::kRead && op != Op::kWrite) return 0;
  std::lock_guard lock(mu_);
  return last_lead_[static_cast<size_t>(op)];
}

}  // namespace diskcond::mount
