#include "dmc/mount/transit_estimator.h"

#include <gtest/gtest.h>

namespace diskcond::mount {
namespace {

TEST(MountTransitEstimator, LearnsEachThreadsMedianGapPerDirection) {
  TransitEstimator t;
  EXPECT_EQ(t.arrived(7, Op::kRead, 1000), 0);  // no reply to thread 7 yet: nothing to learn
  t.replied(7, 10'000);
  EXPECT_EQ(t.arrived(7, Op::kRead, 40'000), 30'000);
  t.replied(7, 100'000);
  EXPECT_EQ(t.arrived(7, Op::kRead, 125'000), 25'000);  // lower median of 25 and 30 us
  t.replied(7, 200'000);
  EXPECT_EQ(t.arrived(7, Op::kWrite, 700'000), 500'000);  // a write's data is copied in first
  t.replied(7, 800'000);
  EXPECT_EQ(t.arrived(7, Op::kRead, 900'000), 30'000);  // 25, 30, 100 us
  EXPECT_EQ(t.last_lead_ns(Op::kRead), 30'000);
  EXPECT_EQ(t.last_lead_ns(Op::kWrite), 500'000);
  EXPECT_EQ(t.arrived(7, Op::kFlush, 900'000), 0);
  // Another thread with requests queued ahead gets its own, small lead.
  t.replied(8, 1'000'000);
  EXPECT_EQ(t.arrived(8, Op::kRead, 1'000'500), 500);
  t.replied(7, 2'000'000);
  EXPECT_EQ(t.arrived(7, Op::kRead, 2'030'000), 30'000);  // 25, 30, 30, 100 us
}

TEST(MountTransitEstimator, OutliersEitherWayDoNotSetTheLead) {
  TransitEstimator t;
  int64_t now = 1;
  int64_t lead = 0;
  for (int64_t gap : {40'000, 41'000, 5'000, 39'000, 1'900'000, 40'000, 3'000}) {
    t.replied(4, now);
    lead = t.arrived(4, Op::kRead, now + gap);
    now += 10'000'000;
  }
  EXPECT_EQ(lead, 40'000);  // the smallest gap would have been 3 us, the mean 295 us
}

TEST(MountTransitEstimator, IgnoresThinkTimeAndRequestsQueuedBeforeTheReply) {
  TransitEstimator t;
  t.replied(1, 1'000'000);
  EXPECT_EQ(t.arrived(1, Op::kRead, 1'000'000 + TransitEstimator::kMaxGapNs + 1), 0);
  EXPECT_EQ(t.arrived(1, Op::kRead, 900'000), 0);
  EXPECT_EQ(t.arrived(2, Op::kRead, 1'000'010), 0);
}

TEST(MountTransitEstimator, ForgetsOldGapsAfterAWindow) {
  TransitEstimator t;
  int64_t now = 1;
  t.replied(3, now);
  t.arrived(3, Op::kRead, now + 5'000);  // one fast outlier
  int64_t lead = 0;
  for (size_t i = 0; i < TransitEstimator::kWindow; ++i) {
    now += 1'000'000;
    t.replied(3, now);
    lead = t.arrived(3, Op::kRead, now + 40'000);
  }
  EXPECT_EQ(lead, 40'000);
}

}  // namespace
}  // namespace diskcond::mount
