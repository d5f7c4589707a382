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
  // right now with the old one) and when the slot's share grows.
  if (lowered ||
      std::any_of(kShares.begin(), kShares.end(), [n](const Share& s) { return s.samples == n; })) {
    publish();
  }
}

void CopyBound::publish() {
  std::lock_guard lock(publish_mu_);
  const uint64_t base_samples = samples_[0].load(std::memory_order_relaxed);
  const int64_t base = min_[0].load(std::memory_order_relaxed);
  int64_t running = 0;
  for (int j = 0; j < kSlots; ++j) {
    const uint64_t n = samples_[j].load(std::memory_order_relaxed);
    // The largest share whose sample count the slot has reached; none below kMinSamples.
    const Share* share = nullptr;
    for (const Share& s : kShares) {
      if (n >= s.samples) share = &s;
    }
    if (share != nullptr && base_samples >= kMinSamples) {
      const int64_t adds = std::max<int64_t>(min_[j].load(std::memory_order_relaxed) - base, 0);
      running = std::max(running, adds * share->num / share->den);
    }
    lead_[j].store(running, std::memory_order_relaxed);
  }
}

int64_t CopyBound::lead_ns(uint64_t payload) const {
  if (payload < kSlotBytes) return 0;
  // The last slot all of whose sizes are <= payload: (j + 1) * kSlotBytes <= payload.
  const int j = static_cast<int>(std::min(payload, kMaxBytes) / kSlotBytes) - 1;
  return lead_[j].load(std::memory_order_relaxed);
}

}  // namespace diskcond::mount
