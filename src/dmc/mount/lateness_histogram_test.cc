#include "dmc/mount/lateness_histogram.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace diskcond::mount {
namespace {

TEST(MountLatenessHistogram, EmptyIsAllZero) {
  LatenessHistogram h;
  const LatenessSummary s = h.summary();
  EXPECT_EQ(s.replies, 0u);
  EXPECT_EQ(s.p99_ns, 0);
  EXPECT_EQ(s.max_ns, 0);
  EXPECT_EQ(s.total_ns, 0);
}

TEST(MountLatenessHistogram, BucketsCoverEveryValueAndOverstateByLessThanASixteenth) {
  for (uint64_t v : {0ull, 1ull, 31ull, 32ull, 33ull, 1000ull, 123456789ull, 1ull << 40}) {
    const size_t i = LatenessHistogram::bucket_index(v);
    ASSERT_LT(i, LatenessHistogram::kBucketCount);
    const uint64_t upper = LatenessHistogram::bucket_upper(i);
    EXPECT_GE(upper, v);
    EXPECT_LE(upper - v, v / 16) << v;
    if (i > 0) {
      EXPECT_LT(LatenessHistogram::bucket_upper(i - 1), v) << v;
    }
  }
}

TEST(MountLatenessHistogram, PercentilesOfAKnownSpread) {
  LatenessHistogram h;
  for (int64_t v = 1; v <= 1000; ++v) h.record(v * 1000);  // 1 us .. 1 ms
  h.record(-500);                                          // one early reply, counted as 0
  const LatenessSummary s = h.summary();
  EXPECT_EQ(s.replies, 1001u);
  EXPECT_EQ(s.early, 1u);
  EXPECT_EQ(s.max_ns, 1'000'000);
  EXPECT_EQ(s.total_ns, 500'500'000);  // exact, the early reply as 0
  EXPECT_GE(s.p50_ns, 500'000);
  EXPECT_LE(s.p50_ns, 500'000 * 17 / 16);
  EXPECT_GE(s.p99_ns, 990'000);
  EXPECT_LE(s.p99_ns, 1'000'000);
  EXPECT_EQ(s.p999_ns, 1'000'000);
}

TEST(MountLatenessHistogram, ThreadsRecordWithoutLosingCounts) {
  LatenessHistogram h;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&h, t] {
      for (int i = 0; i < 10000; ++i) h.record(t * 100 + i % 7);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(h.summary().replies, 40000u);
  EXPECT_EQ(h.summary().max_ns, 306);
}

}  // namespace
}  // namespace diskcond::mount
