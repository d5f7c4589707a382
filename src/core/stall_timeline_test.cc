// Stalls: the device clock stops; the disk model, working in device time, completes later.
#include "core/stall_timeline.h"

#include <gtest/gtest.h>

#include "core/disk_model.h"
#include "core/fault_rule_test_support.h"
#include "core/fault_rules.h"
#include "core/units.h"

namespace diskcond {
namespace {

constexpr int64_t ms(double v) {
  return static_cast<int64_t>(v * 1'000'000);
}

using testing::rule;

TEST(StallTimeline, AFixedStallStopsTheDeviceClock) {
  StallTimeline t;
  t.add(1, rule("stall=5ms at=2ms"), 0);  // [2 ms, 7 ms)
  EXPECT_EQ(t.device_ns(ms(1)), ms(1));
  EXPECT_EQ(t.device_ns(ms(2)), ms(2));
  EXPECT_EQ(t.device_ns(ms(4)), ms(2));
  EXPECT_EQ(t.device_ns(ms(7)), ms(2));
  EXPECT_EQ(t.device_ns(ms(10)), ms(5));
  EXPECT_TRUE(t.stalled(ms(2)));
  EXPECT_TRUE(t.stalled(ms(6.9)));
  EXPECT_FALSE(t.stalled(ms(7)));
  EXPECT_FALSE(t.stalled(ms(1.9)));
  EXPECT_EQ(t.wall_ns(ms(1)), ms(1));
  EXPECT_EQ(t.wall_ns(ms(2)), ms(2)) << "done before the stall began: not held";
  EXPECT_EQ(t.wall_ns(ms(2.001)), ms(7.001));
  EXPECT_EQ(t.wall_ns(ms(3)), ms(8));
}

// The disk model in device time, a stall between: arrival times in, completion times out.
TEST(StallTimeline, CompletionsAfterTheStallsStartMoveLaterByIt) {
  Profile p;
  p.name = "1 ms SSD";
  p.access_time_ns = ms(1);
  p.queue_depth = 1;
  DiskModel model(p, kGiB);
  StallTimeline t;
  t.add(1, rule("stall=5ms at=2ms"), 0);
  auto complete = [&](int64_t wall_arrival) {
    return t.wall_ns(model.submit({Op::kRead, 0, 4096, t.device_ns(wall_arrival)}));
  };
  EXPECT_EQ(complete(ms(0)), ms(1));      // done before the stall
  EXPECT_EQ(complete(ms(1.5)), ms(7.5));  // in service when it began: 0.5 ms left after it
  EXPECT_EQ(complete(ms(4)), ms(8.5));    // arrived during it: queued behind the previous one
  EXPECT_EQ(complete(ms(20)), ms(21));    // long after: unaffected
}

TEST(StallTimeline, AnUnboundedStallHoldsEverythingUntilReleased) {
  StallTimeline t;
  t.add(1, rule("stall=unbounded at=1ms"), 0);
  EXPECT_EQ(t.device_ns(ms(5)), ms(1));
  EXPECT_EQ(t.wall_ns(ms(1)), ms(1));
  EXPECT_EQ(t.wall_ns(ms(1.5)), kNeverNs);
  t.advance(ms(5));
  EXPECT_FALSE(t.settled());
  EXPECT_EQ(t.release(ms(10)), 1u);
  EXPECT_EQ(t.wall_ns(ms(1.5)), ms(10.5));
  EXPECT_EQ(t.device_ns(ms(12)), ms(3));
  t.advance(ms(12));
  EXPECT_TRUE(t.settled());
  EXPECT_EQ(t.stalled_by_checkpoint(), ms(9));
  EXPECT_EQ(t.release(ms(13)), 0u) << "nothing in progress";
}

TEST(StallTimeline, PeriodicStallsAddUp) {
  StallTimeline t;
  t.add(1, rule("stall=1ms at=5ms period=10ms"), 0);  // [5, 6), [15, 16), [25, 26) ...
  EXPECT_EQ(t.device_ns(ms(5.5)), ms(5));
  EXPECT_EQ(t.device_ns(ms(20)), ms(18));
  EXPECT_EQ(t.wall_ns(ms(14)), ms(15));
  EXPECT_EQ(t.wall_ns(ms(14.5)), ms(16.5));
  const std::vector<StallStart> begun = t.advance(ms(26));
  ASSERT_EQ(begun.size(), 3u);
  EXPECT_EQ(begun[2].start_ns, ms(25));
  EXPECT_EQ(begun[2].length_ns, ms(1));
  EXPECT_EQ(t.device_ns(ms(1000)), ms(1000 - 100));
  EXPECT_TRUE(t.advance(ms(26)).empty()) << "each stall is reported once";
}

TEST(StallTimeline, RandomLengthsAndProbabilitiesComeFromTheSeed) {
  StallTimeline t;
  t.add(4, rule("stall=1ms-3ms period=10ms p=0.5 seed=7"), 0);
  const std::vector<StallStart> begun = t.advance(ms(995));
  std::vector<StallStart> expected;
  int64_t stalled = 0;
  for (int64_t k = 0; k < 100; ++k) {
    if (stall_draw(7, k, 0) >= 0.5) continue;
    const int64_t length = ms(1) + static_cast<int64_t>(2'000'001 * stall_draw(7, k, 1));
    expected.push_back({4, ms(10) * k, length});
    stalled += length;
  }
  ASSERT_EQ(begun.size(), expected.size());
  ASSERT_GT(begun.size(), 30u);
  ASSERT_LT(begun.size(), 70u);
  for (size_t i = 0; i < begun.size(); ++i) {
    EXPECT_EQ(begun[i].start_ns, expected[i].start_ns) << i;
    EXPECT_EQ(begun[i].length_ns, expected[i].length_ns) << i;
  }
  EXPECT_EQ(t.device_ns(ms(995)), ms(995) - stalled);
  StallTimeline again;
  again.add(4, rule("stall=1ms-3ms period=10ms p=0.5 seed=7"), 0);
  EXPECT_EQ(again.device_ns(ms(995)), ms(995) - stalled) << "the same seed, the same stalls";
}

TEST(StallTimeline, ReleaseEndsTheStallInProgressAndRemoveTheLaterOnes) {
  StallTimeline t;
  t.add(1, rule("stall=4ms period=10ms"), 0);  // [0, 4), [10, 14), [20, 24) ...
  EXPECT_EQ(t.release(ms(2)), 1u);             // [0, 2)
  EXPECT_EQ(t.device_ns(ms(10)), ms(8));
  EXPECT_EQ(t.device_ns(ms(15)), ms(9)) << "the next one is whole";
  EXPECT_TRUE(t.remove(1, ms(12)));  // [10, 12), nothing after
  EXPECT_EQ(t.device_ns(ms(30)), ms(30 - 2 - 2));
  t.advance(ms(30));
  EXPECT_TRUE(t.settled());
  EXPECT_FALSE(t.remove(1, ms(31)));
}

TEST(StallTimeline, OverlappingStallsStallOnce) {
  StallTimeline t;
  t.add(1, rule("stall=4ms at=1ms"), 0);  // [1, 5)
  t.add(2, rule("stall=4ms at=3ms"), 0);  // [3, 7)
  EXPECT_EQ(t.device_ns(ms(10)), ms(4));
  EXPECT_EQ(t.wall_ns(ms(1.5)), ms(7.5));
  EXPECT_EQ(t.advance(ms(10)).size(), 2u);
}

// FaultRules keeps the device clock: stalls counted and logged, the fast path back once the last
// stall rule is gone.
TEST(StallTimeline, FaultRulesCountStallsAndFallBackToAFixedLag) {
  FaultRules rules;
  EXPECT_EQ(rules.fixed_lag_ns(), 0);
  const uint64_t id = rules.add(rule("stall=unbounded at=1ms"), ms(10));
  EXPECT_EQ(rules.fixed_lag_ns(), FaultRules::kStallsLive);
  EXPECT_EQ(rules.device_ns(ms(10.5)), ms(10.5));
  EXPECT_EQ(rules.device_ns(ms(20)), ms(11));
  EXPECT_TRUE(rules.stalled(ms(20)));
  EXPECT_EQ(rules.wall_ns(ms(12)), kNeverNs);
  EXPECT_EQ(rules.injected(), 1u);
  EXPECT_EQ(rules.release(ms(30)), 1u);
  EXPECT_EQ(rules.wall_ns(ms(12)), ms(31));
  EXPECT_EQ(rules.fixed_lag_ns(), ms(19)) << "a released once-stall can stall no more";
  EXPECT_TRUE(rules.remove(id, ms(31)));
  EXPECT_EQ(rules.fixed_lag_ns(), ms(19));
  EXPECT_EQ(rules.stalled_ns(ms(40)), ms(19));
  const std::vector<FaultEvent> log = rules.log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].action, FaultAction::kStall);
  EXPECT_EQ(log[0].at_ns, ms(11));
  EXPECT_EQ(log[0].rule_id, id);
  EXPECT_EQ(log[0].length, 0u) << "unbounded";
}

TEST(StallTimeline, AFinishedOnceStallLeavesTheFastPath) {
  FaultRules rules;
  rules.add(rule("stall=2ms"), ms(1));  // [1, 3)
  EXPECT_EQ(rules.device_ns(ms(2)), ms(1));
  EXPECT_EQ(rules.fixed_lag_ns(), FaultRules::kStallsLive);
  EXPECT_EQ(rules.device_ns(ms(5)), ms(3));
  EXPECT_EQ(rules.fixed_lag_ns(), ms(2));
  ASSERT_EQ(rules.list().size(), 1u);
  EXPECT_EQ(rules.list()[0].fired, 1u);
}

}  // namespace
}  // namespace diskcond
