// How late replies left relative to the time they were due (ReplyScheduler): a log-linear
// histogram that any thread records into without a lock (relaxed atomic counters), and that
// status reads as a snapshot of percentiles.
//
// Buckets: values below 32 ns get one each; above, every power of two is split into 16 equal
// sub-buckets, so a reported percentile (a bucket's upper edge) overstates a value by < 6.25%,
// never understates it. Replies that left early (the scheduler's wake-ahead) count as 0 and are
// counted apart in `early`.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "core/log_linear_buckets.h"

namespace diskcond::mount {

struct LatenessSummary {
  uint64_t replies = 0;  // replies recorded
  uint64_t early = 0;    // ... of which left before their due time
  int64_t p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0;
  int64_t max_ns = 0;    // exact
  int64_t total_ns = 0;  // exact: every reply's lateness added up (early ones as 0)
};

class LatenessHistogram {
 public:
  static constexpr int kSubBucketBits = 4;
  static constexpr uint64_t kSubBuckets = 1u << kSubBucketBits;
  static constexpr size_t kBucketCount = log_linear_bucket_count(kSubBucketBits);

  // Counts one reply that left `late_ns` after its due time (negative: early). Thread-safe,
  // lock-free, allocates nothing.
  void record(int64_t late_ns);
  // Consistent enough for status: counts read while others record may be off by in-flight ones.
  LatenessSummary summary() const;

  static size_t bucket_index(uint64_t ns);
  // The largest value bucket `index` holds.
  static uint64_t bucket_upper(size_t index);

 private:
  std::array<std::atomic<uint64_t>, kBucketCount> buckets_{};
  std::atomic<uint64_t> early_{0};
  std::atomic<int64_t> max_ns_{0};
  std::atomic<int64_t> total_ns_{0};
};

}  // namespace diskcond::mount
