#include "rawio/latency_histogram.h"

#include <string.h>

#include <algorithm>
#include <cmath>
#include <new>

namespace diskcond::rawio {
namespace {

// calloc: a large block comes from mmap as zero pages the kernel fills in only when touched, so
// a histogram that sees few distinct values (or none) costs little memory.
uint64_t* zeroed_buckets() {
  void* p = std::calloc(LatencyHistogram::kBucketCount, sizeof(uint64_t));
  if (!p) throw std::bad_alloc();
  return static_cast<uint64_t*>(p);
}

}  // namespace

LatencyHistogram::LatencyHistogram() : buckets_(zeroed_buckets()) {}

LatencyHistogram::LatencyHistogram(const LatencyHistogram& other) : LatencyHistogram() {
  merge(other);
}

LatencyHistogram& LatencyHistogram::operator=(const LatencyHistogram& other) {
  if (this != &other) *this = LatencyHistogram(other);
  return *this;
}

std::pair<size_t, size_t> LatencyHistogram::used_span() const {
  if (count_ == 0) return {1, 0};
  return {bucket_index(min_ns_), bucket_index(max_ns_)};
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  auto [first, last] = other.used_span();
  for (size_t i = first; i <= last && i < kBucketCount; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ns_ += other.sum_ns_;
  min_ns_ = std::min(min_ns_, other.min_ns_);
  max_ns_ = std::max(max_ns_, other.max_ns_);
}

void LatencyHistogram::merge(const SparseHistogram& other) {
  if (other.count == 0) return;
  for (auto [index, samples] : other.buckets) buckets_[index] += samples;
  count_ += other.count;
  sum_ns_ += other.sum_ns;
  min_ns_ = std::min(min_ns_, other.min_ns);
  max_ns_ = std::max(max_ns_, other.max_ns);
}

void LatencyHistogram::prefault() {
  // Writing a counter back writes its page without changing a count.
  volatile uint64_t* buckets = buckets_.get();
  for (size_t i = 0; i < kBucketCount; i += 512) buckets[i] = buckets[i];
}

BucketList LatencyHistogram::non_empty_buckets() const {
  BucketList out;
  auto [first, last] = used_span();
  for (size_t i = first; i <= last && i < kBucketCount; ++i) {
    if (buckets_[i] != 0) out.emplace_back(static_cast<uint32_t>(i), buckets_[i]);
  }
  return out;
}

SparseHistogram LatencyHistogram::sparse() const {
  return {non_empty_buckets(), count_, sum_ns_, min_ns(), max_ns_};
}

SparseHistogram LatencyHistogram::drain() {
  SparseHistogram out = sparse();
  auto [first, last] = used_span();
  if (first <= last) memset(&buckets_[first], 0, (last - first + 1) * sizeof(uint64_t));
  count_ = 0;
  sum_ns_ = 0;
  min_ns_ = UINT64_MAX;
  max_ns_ = 0;
  return out;
}

LatencyHistogram LatencyHistogram::restore(const BucketList& buckets, uint64_t sum_ns,
                                           uint64_t min_ns, uint64_t max_ns) {
  LatencyHistogram h;
  // A bucket outside min and max (a legacy bucket's midpoint can be) is counted at the nearest
  // end, so that every scan, which runs from min's bucket to max's, sees it.
  const size_t first = bucket_index(min_ns), last = bucket_index(std::max(min_ns, max_ns));
  for (auto [index, samples] : buckets) {
    h.buckets_[std::clamp<size_t>(index, first, last)] += samples;
    h.count_ += samples;
  }
  h.sum_ns_ = sum_ns;
  if (h.count_ > 0) {
    h.min_ns_ = min_ns;
    h.max_ns_ = max_ns;
  }
  return h;
}

BucketList LatencyHistogram::from_legacy_buckets(const BucketList& legacy) {
  BucketList out;
  for (auto [index, samples] : legacy) {
    uint64_t value = log_linear_bucket_lower(index, kLegacySubBucketBits) +
                     log_linear_bucket_width(index, kLegacySubBucketBits) / 2;
    auto mapped = static_cast<uint32_t>(bucket_index(value));
    if (!out.empty() && out.back().first == mapped) {
      out.back().second += samples;  // two legacy buckets above 2^42 ns share the last one
    } else {
      out.emplace_back(mapped, samples);
    }
  }
  return out;
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
  auto [first, last] = used_span();
  for (size_t i = first; i <= last && i < kBucketCount; ++i) {
    seen += buckets_[i];
    if (seen >= rank) return std::clamp(bucket_value(i), min_ns_, max_ns_);
  }
  return max_ns_;
}

}  // namespace diskcond::rawio
