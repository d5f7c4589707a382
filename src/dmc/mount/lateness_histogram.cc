#include "dmc/mount/lateness_histogram.h"

#include <algorithm>
#include <vector>

#include "core/log_linear_buckets.h"

namespace diskcond::mount {

size_t LatenessHistogram::bucket_index(uint64_t ns) {
  return log_linear_bucket(ns, kSubBucketBits);
}

uint64_t LatenessHistogram::bucket_upper(size_t index) {
  return log_linear_bucket_lower(index, kSubBucketBits) +
         log_linear_bucket_width(index, kSubBucketBits) - 1;
}

void LatenessHistogram::record(int64_t late_ns) {
  if (late_ns < 0) {
    early_.fetch_add(1, std::memory_order_relaxed);
    late_ns = 0;
  }
  buckets_[bucket_index(static_cast<uint64_t>(late_ns))].fetch_add(1, std::memory_order_relaxed);
  total_ns_.fetch_add(late_ns, std::memory_order_relaxed);
  int64_t seen = max_ns_.load(std::memory_order_relaxed);
  while (late_ns > seen &&
         !max_ns_.compare_exchange_weak(seen, late_ns, std::memory_order_relaxed)) {
  }
}

LatenessSummary LatenessHistogram::summary() const {
  LatenessSummary s;
  std::vector<uint64_t> counts(kBucketCount);
  for (size_t i = 0; i < kBucketCount; ++i) {
    counts[i] = buckets_[i].load(std::memory_order_relaxed);
    s.replies += counts[i];
  }
  s.early = early_.load(std::memory_order_relaxed);
  s.max_ns = max_ns_.load(std::memory_order_relaxed);
  s.total_ns = total_ns_.load(std::memory_order_relaxed);
  if (s.replies == 0) return s;
  // The value of rank ceil(fraction * replies), as its bucket's upper edge, at most max.
  auto at = [&](double fraction) {
    uint64_t rank = static_cast<uint64_t>(fraction * static_cast<double>(s.replies) + 0.999999);
    if (rank < 1) rank = 1;
    uint64_t seen = 0;
    for (size_t i = 0; i < kBucketCount; ++i) {
      seen += counts[i];
      if (seen >= rank) return std::min<int64_t>(static_cast<int64_t>(bucket_upper(i)), s.max_ns);
    }
    return s.max_ns;
  };
  s.p50_ns = at(0.50);
  s.p90_ns = at(0.90);
  s.p99_ns = at(0.99);
  s.p999_ns = at(0.999);
  return s;
}

}  // namespace diskcond::mount
