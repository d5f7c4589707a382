#include "rawio/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace diskcond::rawio {
namespace {

TEST(RawioHistogram, SmallValuesAreExact) {
  for (uint64_t v = 0; v < 128; ++v) {
    EXPECT_EQ(LatencyHistogram::bucket_index(v), v);
    EXPECT_EQ(LatencyHistogram::bucket_value(v), v);
  }
}

TEST(RawioHistogram, BucketMidpointWithinOnePercentOfEveryValue) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    uint64_t v = rng() >> (rng() % 60);
    size_t idx = LatencyHistogram::bucket_index(v);
    ASSERT_LT(idx, LatencyHistogram::kBucketCount);
    double rep = static_cast<double>(LatencyHistogram::bucket_value(idx));
    ASSERT_LE(std::fabs(rep - static_cast<double>(v)), 0.01 * static_cast<double>(v) + 0.5) << v;
  }
  EXPECT_LT(LatencyHistogram::bucket_index(UINT64_MAX), LatencyHistogram::kBucketCount);
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
  EXPECT_EQ(buckets.size(), 4u);  // 1000 and 1001 share a bucket, the two 7 ms too
  LatencyHistogram b = LatencyHistogram::restore(buckets, a.sum_ns(), a.min_ns(), a.max_ns());
  EXPECT_EQ(b.count(), a.count());
  EXPECT_EQ(b.min_ns(), 90u);
  EXPECT_EQ(b.max_ns(), 7'000'000u);
  EXPECT_DOUBLE_EQ(b.mean_ns(), a.mean_ns());
  for (double p : {1.0, 50.0, 90.0, 99.0, 99.9, 100.0})
    EXPECT_EQ(b.percentile_ns(p), a.percentile_ns(p));
  EXPECT_EQ(LatencyHistogram::restore({}, 0, 0, 0).min_ns(), 0u);
}

}  // namespace
}  // namespace diskcond::rawio
