#include "rawio/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace diskcond::rawio {
namespace {

TEST(RawioHistogram, SmallValuesAreExact) {
  for (uint64_t v = 0; v < 2048; ++v) {
    EXPECT_EQ(LatencyHistogram::bucket_index(v), v);
    EXPECT_EQ(LatencyHistogram::bucket_value(v), v);
  }
}

// Three significant digits from 100 ns to an hour: every value's bucket midpoint within 0.1%
// (the layout gives 1/2048, < 0.05%), checked at random values and at every bucket's two ends.
TEST(RawioHistogram, BucketMidpointWithinATenthOfAPercentFrom100nsToAnHour) {
  constexpr uint64_t kHour = 3'600'000'000'000;
  auto check = [](uint64_t v) {
    size_t idx = LatencyHistogram::bucket_index(v);
    ASSERT_LT(idx, LatencyHistogram::kBucketCount);
    double rep = static_cast<double>(LatencyHistogram::bucket_value(idx));
    ASSERT_LT(std::fabs(rep - static_cast<double>(v)), 0.001 * static_cast<double>(v)) << v;
    ASSERT_LE(std::fabs(rep - static_cast<double>(v)), static_cast<double>(v) / 2048) << v;
  };
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> log_value(std::log(100.0), std::log(double(kHour)));
  for (int i = 0; i < 200000; ++i) check(static_cast<uint64_t>(std::exp(log_value(rng))));
  for (size_t idx = LatencyHistogram::bucket_index(100);
       idx <= LatencyHistogram::bucket_index(kHour); ++idx) {
    uint64_t lower = log_linear_bucket_lower(idx, LatencyHistogram::kSubBucketBits);
    uint64_t width = log_linear_bucket_width(idx, LatencyHistogram::kSubBucketBits);
    check(lower);
    check(lower + width - 1);
  }
  check(kHour);
  EXPECT_EQ(LatencyHistogram::kBucketCount, 33792u);
  EXPECT_EQ(LatencyHistogram::bucket_index(UINT64_MAX), LatencyHistogram::kBucketCount - 1);
  EXPECT_EQ(LatencyHistogram::bucket_index(LatencyHistogram::kMaxTrackedNs),
            LatencyHistogram::kBucketCount - 1);
  // Exact numbers of the layout: 2048 is the first shared bucket, 2^42 - 1 the last.
  EXPECT_EQ(LatencyHistogram::bucket_index(2047), 2047u);
  EXPECT_EQ(LatencyHistogram::bucket_index(2048), 2048u);
  EXPECT_EQ(LatencyHistogram::bucket_index(2049), 2048u);
  EXPECT_EQ(LatencyHistogram::bucket_value(2048), 2049u);
  EXPECT_EQ(LatencyHistogram::bucket_index(1'000'000),
            11'169u);  // 10 << 10, then (10^6 >> 9) & 1023
}

TEST(RawioHistogram, HugeValuesShareTheLastBucketAndKeepAnExactMax) {
  LatencyHistogram h;
  h.record(5'000'000'000'000);  // 83 minutes
  h.record(UINT64_MAX);
  EXPECT_EQ(h.non_empty_buckets().size(), 1u);
  EXPECT_EQ(h.max_ns(), UINT64_MAX);
  EXPECT_EQ(h.min_ns(), 5'000'000'000'000u);
  EXPECT_EQ(h.percentile_ns(50), 5'000'000'000'000u);  // the midpoint, clamped to min
}

TEST(RawioHistogram, IndexIsMonotonic) {
  size_t last = 0;
  for (uint64_t v = 0; v < 5'000'000; v += 37) {
    size_t idx = LatencyHistogram::bucket_index(v);
    ASSERT_GE(idx, last);
    last = idx;
  }
}

TEST(RawioHistogram, PercentilesMatchExactSortWithinOnePercent) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(11.0, 1.0);  // ~60 us median
  std::vector<uint64_t> values;
  LatencyHistogram h;
  for (int i = 0; i < 100000; ++i) {
    uint64_t v = static_cast<uint64_t>(dist(rng));
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    uint64_t rank = static_cast<uint64_t>(std::ceil(p / 100.0 * values.size()));
    double exact = static_cast<double>(values[rank - 1]);
    EXPECT_NEAR(static_cast<double>(h.percentile_ns(p)), exact, exact * 0.01) << p;
  }
  EXPECT_EQ(h.max_ns(), values.back());
  EXPECT_EQ(h.min_ns(), values.front());
  EXPECT_EQ(h.percentile_ns(100), values.back());
}

TEST(RawioHistogram, MergeEqualsRecordingEverythingInOne) {
  LatencyHistogram a, b, all;
  for (uint64_t v = 1; v < 100000; v += 7) {
    (v % 2 ? a : b).record(v * 13);
    all.record(v * 13);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min_ns(), all.min_ns());
  EXPECT_EQ(a.max_ns(), all.max_ns());
  EXPECT_DOUBLE_EQ(a.mean_ns(), all.mean_ns());
  for (double p : {1.0, 50.0, 99.0, 99.99}) EXPECT_EQ(a.percentile_ns(p), all.percentile_ns(p));
}

TEST(RawioHistogram, EmptyHistogramReportsZeros) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min_ns(), 0u);
  EXPECT_EQ(h.max_ns(), 0u);
  EXPECT_EQ(h.percentile_ns(50), 0u);
  EXPECT_EQ(h.mean_ns(), 0.0);
}

TEST(RawioHistogram, CopyIsDeep) {
  LatencyHistogram a;
  a.record(1000);
  LatencyHistogram b = a;
  b.record(5000);
  EXPECT_EQ(a.count(), 1u);
  EXPECT_EQ(b.count(), 2u);
}

TEST(RawioHistogram, RestoreFromNonEmptyBucketsIsExact) {
  LatencyHistogram a;
  for (uint64_t v : {90u, 1000u, 1001u, 250'000u, 7'000'000u, 7'000'000u}) a.record(v);
  auto buckets = a.non_empty_buckets();
  EXPECT_EQ(buckets.size(), 5u);  // 1000 and 1001 apart now; the two 7 ms share one
  LatencyHistogram b = LatencyHistogram::restore(buckets, a.sum_ns(), a.min_ns(), a.max_ns());
  EXPECT_EQ(b.count(), a.count());
  EXPECT_EQ(b.min_ns(), 90u);
  EXPECT_EQ(b.max_ns(), 7'000'000u);
  EXPECT_DOUBLE_EQ(b.mean_ns(), a.mean_ns());
  for (double p : {1.0, 50.0, 90.0, 99.0, 99.9, 100.0})
    EXPECT_EQ(b.percentile_ns(p), a.percentile_ns(p));
  EXPECT_EQ(LatencyHistogram::restore({}, 0, 0, 0).min_ns(), 0u);
  EXPECT_EQ(LatencyHistogram::restore(a.sparse()).non_empty_buckets(), buckets);
}

TEST(RawioHistogram, DrainReturnsTheSparseFormAndEmpties) {
  LatencyHistogram a;
  for (uint64_t v : {3000u, 3000u, 9'000'000u}) a.record(v);
  SparseHistogram s = a.drain();
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.sum_ns, 9'006'000u);
  EXPECT_EQ(s.min_ns, 3000u);
  EXPECT_EQ(s.max_ns, 9'000'000u);
  ASSERT_EQ(s.buckets.size(), 2u);
  EXPECT_EQ(s.buckets[0], (std::pair<uint32_t, uint64_t>{LatencyHistogram::bucket_index(3000), 2}));
  EXPECT_EQ(a.count(), 0u);
  EXPECT_TRUE(a.non_empty_buckets().empty());
  a.record(50);
  EXPECT_EQ(a.min_ns(), 50u);
  EXPECT_EQ(a.max_ns(), 50u);
  EXPECT_EQ(a.non_empty_buckets().size(), 1u);
}

TEST(RawioHistogram, MergingWorkersSparseHistogramsEqualsOneOfAllSamples) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> dist(12.0, 2.0);
  LatencyHistogram all, merged;
  for (int w = 0; w < 8; ++w) {
    LatencyHistogram worker;
    for (int i = 0; i < 5000; ++i) {
      uint64_t v = static_cast<uint64_t>(dist(rng));
      worker.record(v);
      all.record(v);
    }
    merged.merge(worker.sparse());
  }
  EXPECT_EQ(merged.sparse(), all.sparse());
  for (double p : {50.0, 99.0, 99.9, 99.99})
    EXPECT_EQ(merged.percentile_ns(p), all.percentile_ns(p));
}

TEST(RawioHistogram, LegacyBucketsMapToTheBucketOfTheirMidpoint) {
  // The 6-bit layout rawio stored before: 1000 ns in bucket 317 ([1000, 1008)), 2000 in 381
  // ([2000, 2016)), 100 ns exact in 100.
  BucketList legacy = {{100, 1}, {317, 2}, {381, 1}};
  BucketList mapped = LatencyHistogram::from_legacy_buckets(legacy);
  ASSERT_EQ(mapped.size(), 3u);
  EXPECT_EQ(mapped[0], (std::pair<uint32_t, uint64_t>{100, 1}));
  EXPECT_EQ(mapped[1].first, LatencyHistogram::bucket_index(1004));
  EXPECT_EQ(mapped[1].second, 2u);
  EXPECT_EQ(mapped[2].first, LatencyHistogram::bucket_index(2008));
  LatencyHistogram h = LatencyHistogram::restore(mapped, 100 + 2000 + 2000, 100, 2000);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.percentile_ns(50), 1004u);
  EXPECT_EQ(h.percentile_ns(100), 2000u);
}

}  // namespace
}  // namespace diskcond::rawio
