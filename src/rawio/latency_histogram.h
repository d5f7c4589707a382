// LatencyHistogram: a mergeable log-linear histogram of latencies in nanoseconds, as fio keeps.
//
// Values below 128 ns get a bucket each; above that every power of two is split into 64 equal
// sub-buckets, so a bucket's midpoint is within 1/128 (< 0.8%) of any value in it. The bucket
// array is fixed-size and allocated once at construction: record() never allocates and takes no
// lock, so each worker owns one histogram and they are merged after the workers have stopped.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/log_linear_buckets.h"

namespace diskcond::rawio {

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 6;  // 64 sub-buckets
  static constexpr uint64_t kSubBuckets = 1u << kSubBucketBits;
  static constexpr size_t kBucketCount = log_linear_bucket_count(kSubBucketBits);

  LatencyHistogram();
  LatencyHistogram(const LatencyHistogram& other);
  LatencyHistogram& operator=(const LatencyHistogram& other);
  LatencyHistogram(LatencyHistogram&&) noexcept = default;
  LatencyHistogram& operator=(LatencyHistogram&&) noexcept = default;

  // Hot path: counts one latency. No allocation, no lock.
  void record(uint64_t ns) {
    ++(*buckets_)[bucket_index(ns)];
    ++count_;
    sum_ns_ += ns;
    if (ns < min_ns_) min_ns_ = ns;
    if (ns > max_ns_) max_ns_ = ns;
  }

  // Adds every sample of `other` to this histogram.
  void merge(const LatencyHistogram& other);

  uint64_t count() const { return count_; }
  // min/max are exact; 0 when empty.
  uint64_t min_ns() const { return count_ ? min_ns_ : 0; }
  uint64_t max_ns() const { return max_ns_; }
  double mean_ns() const { return count_ ? static_cast<double>(sum_ns_) / count_ : 0.0; }
  // The value at percentile p (0 < p <= 100): the midpoint of the bucket holding the sample of
  // rank ceil(p/100 * count), clamped to [min, max]; exactly max for the last rank. 0 when empty.
  uint64_t percentile_ns(double p) const;

  // For storing and restoring a histogram exactly (rawio --save): the sum of all samples, the
  // non-empty buckets as (index, samples) in index order, and the inverse.
  uint64_t sum_ns() const { return sum_ns_; }
  std::vector<std::pair<uint32_t, uint64_t>> non_empty_buckets() const;
  // REQUIRES: every index < kBucketCount. count() becomes the sum of the bucket samples.
  static LatencyHistogram restore(const std::vector<std::pair<uint32_t, uint64_t>>& buckets,
                                  uint64_t sum_ns, uint64_t min_ns, uint64_t max_ns);

  static size_t bucket_index(uint64_t ns) { return log_linear_bucket(ns, kSubBucketBits); }
  // The representative (midpoint) value of bucket `index`.
  static uint64_t bucket_value(size_t index);

 private:
  using Buckets = std::array<uint64_t, kBucketCount>;
  std::unique_ptr<Buckets> buckets_;
  uint64_t count_ = 0;
  uint64_t sum_ns_ = 0;
  uint64_t min_ns_ = UINT64_MAX;
  uint64_t max_ns_ = 0;
};

}  // namespace diskcond::rawio
