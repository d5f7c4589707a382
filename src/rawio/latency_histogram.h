// LatencyHistogram: a mergeable log-linear histogram of latencies in nanoseconds, fio's scheme
// made wide and fine enough for three significant digits.
//
// Values below 2048 ns get a bucket each; above that every power of two is split into 1024 equal
// sub-buckets, so a bucket's midpoint is within 1/2048 (< 0.05%) of any value in it. Buckets go up
// to 2^42 ns (73 minutes); larger values share the last bucket (min and max stay exact). The
// bucket array (33792 counters, 264 KiB) is fixed-size and allocated once at construction, zeroed
// by the kernel page by page as it is touched: record() never allocates and takes no lock, so each
// worker owns one histogram and they are merged, by adding buckets, after the workers have stopped.
//
// SparseHistogram is the compact form that is stored and exchanged (JSON, the history database,
// per-interval histograms): the non-empty buckets with the exact count, sum, min and max.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include "core/log_linear_buckets.h"

namespace diskcond::rawio {

using BucketList = std::vector<std::pair<uint32_t, uint64_t>>;  // (index, samples), index order

struct SparseHistogram {
  BucketList buckets;
  uint64_t count = 0;  // the sum of the buckets' samples
  uint64_t sum_ns = 0;
  uint64_t min_ns = 0;  // exact; 0 when empty
  uint64_t max_ns = 0;
  bool operator==(const SparseHistogram&) const = default;
};

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 10;  // 1024 sub-buckets per power of two
  static constexpr uint64_t kSubBuckets = 1u << kSubBucketBits;
  static constexpr uint64_t kMaxTrackedNs = (uint64_t{1} << 42) - 1;  // larger: the last bucket
  static constexpr size_t kBucketCount = (42 - kSubBucketBits + 1) << kSubBucketBits;
  // The layout of the histograms rawio stored before schema 3 (6 sub-bucket bits, every uint64_t).
  static constexpr int kLegacySubBucketBits = 6;
  static constexpr size_t kLegacyBucketCount = log_linear_bucket_count(kLegacySubBucketBits);

  LatencyHistogram();
  LatencyHistogram(const LatencyHistogram& other);
  LatencyHistogram& operator=(const LatencyHistogram& other);
  LatencyHistogram(LatencyHistogram&&) noexcept = default;
  LatencyHistogram& operator=(LatencyHistogram&&) noexcept = default;

  // Hot path: counts one latency. No allocation, no lock.
  void record(uint64_t ns) {
    ++buckets_[bucket_index(ns)];
    ++count_;
    sum_ns_ += ns;
    if (ns < min_ns_) min_ns_ = ns;
    if (ns > max_ns_) max_ns_ = ns;
  }

  // Adds every sample of `other` to this histogram (bucket by bucket).
  void merge(const LatencyHistogram& other);
  void merge(const SparseHistogram& other);
  // Touches every page of the bucket array, so that record() takes no page fault later.
  void prefault();

  uint64_t count() const { return count_; }
  // min/max are exact; 0 when empty.
  uint64_t min_ns() const { return count_ ? min_ns_ : 0; }
  uint64_t max_ns() const { return max_ns_; }
  double mean_ns() const { return count_ ? static_cast<double>(sum_ns_) / count_ : 0.0; }
  // The value at percentile p (0 < p <= 100): the midpoint of the bucket holding the sample of
  // rank ceil(p/100 * count), clamped to [min, max]; exactly max for the last rank. 0 when empty.
  uint64_t percentile_ns(double p) const;

  // For storing and restoring a histogram exactly (rawio --save, JSON): the sum of all samples,
  // the non-empty buckets as (index, samples) in index order, and the inverse.
  uint64_t sum_ns() const { return sum_ns_; }
  BucketList non_empty_buckets() const;
  SparseHistogram sparse() const;
  // Returns sparse() and empties this histogram; costs the span of buckets between min and max.
  SparseHistogram drain();
  // REQUIRES: every index < kBucketCount. count() becomes the sum of the bucket samples.
  static LatencyHistogram restore(const BucketList& buckets, uint64_t sum_ns, uint64_t min_ns,
                                  uint64_t max_ns);
  static LatencyHistogram restore(const SparseHistogram& sparse) {
    return restore(sparse.buckets, sparse.sum_ns, sparse.min_ns, sparse.max_ns);
  }
  // Buckets of the legacy layout (kLegacySubBucketBits) in this one: each legacy bucket's samples
  // go to the bucket holding the legacy bucket's midpoint (so such a histogram keeps its old
  // resolution, < 0.8%). REQUIRES: every index < kLegacyBucketCount.
  static BucketList from_legacy_buckets(const BucketList& legacy);

  static size_t bucket_index(uint64_t ns) {
    return log_linear_bucket(ns < kMaxTrackedNs ? ns : kMaxTrackedNs, kSubBucketBits);
  }
  // The representative (midpoint) value of bucket `index`.
  static uint64_t bucket_value(size_t index);

 private:
  struct FreeDeleter {
    void operator()(uint64_t* p) const { std::free(p); }
  };
  // [first, last] bucket indices that can be non-zero (from min and max); first > last if empty.
  std::pair<size_t, size_t> used_span() const;

  std::unique_ptr<uint64_t[], FreeDeleter> buckets_;  // kBucketCount, calloc'd
  uint64_t count_ = 0;
  uint64_t sum_ns_ = 0;
  uint64_t min_ns_ = UINT64_MAX;
  uint64_t max_ns_ = 0;
};

}  // namespace diskcond::rawio
