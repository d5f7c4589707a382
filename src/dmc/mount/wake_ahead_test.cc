#include "dmc/mount/wake_ahead.h"

#include <gtest/gtest.h>

namespace diskcond::mount {
namespace {

constexpr int64_t kUs = 1000;

TEST(MountWakeAhead, BandsDoubleFrom100Microseconds) {
  EXPECT_EQ(WakeAhead::band(0), 0);
  EXPECT_EQ(WakeAhead::band(99 * kUs), 0);
  EXPECT_EQ(WakeAhead::band(100 * kUs), 1);
  EXPECT_EQ(WakeAhead::band(199 * kUs), 1);
  EXPECT_EQ(WakeAhead::band(200 * kUs), 2);
  EXPECT_EQ(WakeAhead::band(3000 * kUs), 5);  // 1.6 - 3.2 ms
  EXPECT_EQ(WakeAhead::band(6399 * kUs), 6);
  EXPECT_EQ(WakeAhead::band(6400 * kUs), 7);
  EXPECT_EQ(WakeAhead::band(int64_t{1} << 50), 7);
}

TEST(MountWakeAhead, EachBandLearnsItsOwnOvershoot) {
  WakeAhead w(150 * kUs);
  // Short waits overshoot by 28 us, long ones by 45 us (as measured on the 2-core VM).
  for (int i = 0; i < 200; ++i) {
    w.learn(600 * kUs, 28 * kUs);
    w.learn(3000 * kUs, 45 * kUs);
  }
  // A moving average of a constant converges to it, from below (integer division).
  EXPECT_NEAR(w.ahead_ns(600 * kUs), 28 * kUs, 8);
  EXPECT_NEAR(w.ahead_ns(3000 * kUs), 45 * kUs, 8);
  EXPECT_EQ(w.ahead_ns(50 * kUs), 0);  // a band with no waits yet asks for nothing
  EXPECT_EQ(w.last_ns(), w.ahead_ns(3000 * kUs));
}

TEST(MountWakeAhead, OneWaitMovesItsBandByAnEighth) {
  WakeAhead w(150 * kUs);
  w.learn(1000 * kUs, 80 * kUs);
  EXPECT_EQ(w.ahead_ns(1000 * kUs), 10 * kUs);
  w.learn(1000 * kUs, 0);
  EXPECT_EQ(w.ahead_ns(1000 * kUs), 8750);
}

TEST(MountWakeAhead, OvershootIsClampedToTheCapAndNeverNegative) {
  WakeAhead w(150 * kUs);
  w.learn(1000 * kUs, 10'000 * kUs);  // a 10 ms hiccup counts as the cap
  EXPECT_EQ(w.ahead_ns(1000 * kUs), 150 * kUs / 8);
  w.learn(200 * kUs, -5 * kUs);  // woke before its deadline: counts as 0
  EXPECT_EQ(w.ahead_ns(200 * kUs), 0);
}

}  // namespace
}  // namespace diskcond::mount
