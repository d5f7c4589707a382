#include "rawio/interval_histograms.h"

#include <gtest/gtest.h>

namespace diskcond::rawio {
namespace {

TEST(RawioIntervalHistograms, EachSecondKeepsItsOwnSamples) {
  IntervalHistograms h(4);
  h.record(0, 1000);
  h.record(0, 3000);
  h.record(2, 5'000'000);
  h.record(3, 7);
  h.finish();
  const auto& s = h.seconds();
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].count, 2u);
  EXPECT_EQ(s[0].sum_ns, 4000u);
  EXPECT_EQ(s[0].min_ns, 1000u);
  EXPECT_EQ(s[0].max_ns, 3000u);
  EXPECT_EQ(s[1], SparseHistogram{});
  EXPECT_EQ(s[2].count, 1u);
  EXPECT_EQ(s[2].buckets.size(), 1u);
  EXPECT_EQ(s[3].min_ns, 7u);
}

TEST(RawioIntervalHistograms, MergedSecondsAddWorkersAndMakeTheTotal) {
  IntervalHistograms a(3), b(3);
  LatencyHistogram all;
  for (uint64_t v = 100; v < 100000; v += 97) {
    size_t second = v % 3;
    (v % 2 ? a : b).record(second, v);
    all.record(v);
  }
  a.finish();
  b.finish();
  LatencyHistogram total;
  auto seconds = merge_seconds({&a, &b}, 3, total);
  ASSERT_EQ(seconds.size(), 3u);
  EXPECT_EQ(total.sparse(), all.sparse());
  uint64_t count = 0;
  for (const auto& s : seconds) count += s.count;
  EXPECT_EQ(count, all.count());
  // A worker's second out of order (only the clamp to the last slot could do it) still adds up.
  IntervalHistograms c(2);
  c.record(1, 10);
  c.record(0, 20);
  c.record(1, 30);
  c.finish();
  EXPECT_EQ(c.seconds()[1].count, 2u);
  EXPECT_EQ(c.seconds()[1].sum_ns, 40u);
}

}  // namespace
}  // namespace diskcond::rawio
