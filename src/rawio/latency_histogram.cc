#include "rawio/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace diskcond::rawio {

LatencyHistogram::LatencyHistogram() : buckets_(std::make_unique<Buckets>()) {
  buckets_->fill(0);
}

LatencyHistogram::LatencyHistogram(const LatencyHistogram& other)
    : buckets_(std::make_unique<Buckets>(*other.buckets_)),
      count_(other.count_),
      sum_ns_(other.sum_ns_),
      min_ns_(other.min_ns_),
      max_ns_(other.max_ns_) {}

LatencyHistogram& LatencyHistogram::operator=(const LatencyHistogram& other) {
  if (this != &other) *this = LatencyHistogram(other);
  return *this;
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < kBucketCount; ++i) (*buckets_)[i] += (*other.buckets_)[i];
  count_ += other.count_;
  sum_ns_ += other.sum_ns_;
  min_ns_ = std::min(min_ns_, other.min_ns_);
  max_ns_ = std::max(max_ns_, other.max_ns_);
}

std::vector<std::pair<uint32_t, uint64_t>> LatencyHistogram::non_empty_buckets() const {
  std::vector<std::pair<uint32_t, uint64_t>> out;
  for (size_t i = 0; i < kBucketCount; ++i) {
    if ((*buckets_)[i] != 0) out.emplace_back(static_cast<uint32_t>(i), (*buckets_)[i]);
  }
  return out;
}

LatencyHistogram LatencyHistogram::restore(
    const std::vector<std::pair<uint32_t, uint64_t>>& buckets, uint64_t sum_ns, uint64_t min_ns,
    uint64_t max_ns) {
  LatencyHistogram h;
  for (auto [index, samples] : buckets) {
    (*h.buckets_)[index] += samples;
    h.count_ += samples;
  }
  h.sum_ns_ = sum_ns;
  if (h.count_ > 0) {
    h.min_ns_ = min_ns;
    h.max_ns_ = max_ns;
  }
  return h;
}

uint64_t LatencyHistogram::bucket_value(size_t index) {
  // Midpoint of the bucket (a one-value bucket is its value).
  return log_linear_bucket_lower(index, kSubBucketBits) +
         log_linear_bucket_width(index, kSubBucketBits) / 2;
}

uint64_t LatencyHistogram::percentile_ns(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  // The tolerance keeps 99.9% of 1000 at rank 999 despite binary floating point.
  double exact_rank = p / 100.0 * static_cast<double>(count_);
  uint64_t rank = static_cast<uint64_t>(std::ceil(exact_rank - 1e-9 * exact_rank));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  if (rank == count_) return max_ns_;  // the largest sample is known exactly
  uint64_t seen = 0;
  for (size_t i = 0; i < kBucketCount; ++i) {
    seen += (*buckets_)[i];
    if (seen >= rank) return std::clamp(bucket_value(i), min_ns_, max_ns_);
  }
  return max_ns_;
}

}  // namespace diskcond::rawio
