#include "dmc/mount/copy_bound.h"

#include <algorithm>

namespace diskcond::mount {

int CopyBound::slot_of(uint64_t payload) {
  return payload == 0 ? 0 : static_cast<int>((payload - 1) / kSlotBytes);
}

void CopyBound::record(uint64_t payload, int64_t ns) {
  if (ns <= 0 || payload > kMaxBytes) return;
  const int j = slot_of(payload);
  const uint64_t n = samples_[j].fetch_add(1, std::memory_order_relaxed) + 1;
  int64_t seen = min_[j].load(std::memory_order_relaxed);
  bool lowered = false;
  while (seen == 0 || ns < seen) {
    if (min_[j].compare_exchange_weak(seen, ns, std::memory_order_relaxed)) {
      lowered = true;
      break;
    }
  }
  // Publish on every new minimum (ready or not: another thread may be making the slot ready
  // right now with the old one) and when the slot becomes ready.
  if (lowered || n == kMinSamples) publish();
}

void CopyBound::publish() {
  std::lock_guard lock(publish_mu_);
  int64_t running = 0;
  for (int j = 0; j < kSlots; ++j) {
    if (samples_[j].load(std::memory_order_relaxed) >= kMinSamples) {
      running = std::max(running, min_[j].load(std::memory_order_relaxed));
    }
    bound_[j].store(running, std::memory_order_relaxed);
  }
  const bool base_ready = samples_[0].load(std::memory_order_relaxed) >= kMinSamples;
  base_.store(base_ready ? min_[0].load(std::memory_order_relaxed) : 0, std::memory_order_relaxed);
}

int64_t CopyBound::lead_ns(uint64_t payload) const {
  if (payload < kSlotBytes) return 0;
  const int64_t base = base_.load(std::memory_order_relaxed);
  if (base == 0) return 0;
  // The last slot all of whose sizes are <= payload: (j + 1) * kSlotBytes <= payload.
  const int j = static_cast<int>(std::min(payload, kMaxBytes) / kSlotBytes) - 1;
  const int64_t adds = std::max<int64_t>(bound_[j].load(std::memory_order_relaxed) - base, 0);
  return adds * kLeadShareNum / kLeadShareDen;
}

}  // namespace diskcond::mount
