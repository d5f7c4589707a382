#include "dmc/mount/device_clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/fault_rule_test_support.h"
#include "dmc/mount/reply_scheduler.h"

namespace diskcond::mount {
namespace {

using diskcond::testing::rule;

TEST(MountDeviceClock, IsTheWallClockLessTheStalls) {
  FakeClock wall(1'000'000);
  FaultRules faults;
  DeviceClock clock(wall);
  EXPECT_EQ(clock.now_ns(), 1'000'000) << "not attached: the wall clock";
  EXPECT_EQ(clock.ns_at_wall(900'000), 900'000);
  clock.attach(faults);
  EXPECT_EQ(clock.now_ns(), 1'000'000);
  faults.add(rule("stall=2ms"), wall.now_ns());  // [1 ms, 3 ms)
  wall.advance(1'000'000);
  EXPECT_EQ(clock.now_ns(), 1'000'000);
  EXPECT_EQ(clock.wall_now_ns(), 2'000'000);
  EXPECT_EQ(clock.wall_ns_when(1'500'000), 3'500'000);
  EXPECT_EQ(clock.ns_at_wall(1'500'000), 500'000) << "in a stall: now less the wall time since";
  wall.advance(3'000'000);
  EXPECT_EQ(clock.now_ns(), 3'000'000);
  EXPECT_EQ(faults.fixed_lag_ns(), 2'000'000) << "the stall is over: the fast path again";
  EXPECT_EQ(clock.wall_ns_when(4'000'000), 6'000'000);
  EXPECT_EQ(clock.ns_at_wall(4'900'000), 2'900'000) << "exact: the wall time less the lag";
}

TEST(MountDeviceClock, TheSchedulerHoldsRepliesUntilRelease) {
  MonotonicClock wall;
  FaultRules faults;
  DeviceClock clock(wall);
  clock.attach(faults);
  ReplyScheduler scheduler(clock);
  faults.add(rule("stall=unbounded"), wall.now_ns());
  std::atomic<bool> sent{false};
  scheduler.at(clock.now_ns() + 1, [&] { sent = true; });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(sent.load());
  EXPECT_EQ(scheduler.queued(), 1u);
  EXPECT_EQ(faults.release(wall.now_ns()), 1u);
  scheduler.poke();
  for (int i = 0; i < 1000 && !sent; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(sent.load());
}

}  // namespace
}  // namespace diskcond::mount
