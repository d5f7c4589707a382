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
  // A constant overshoot is converged to, from below (integer division).
  EXPECT_NEAR(w.ahead_ns(600 * kUs), 28 * kUs, 8);
  EXPECT_NEAR(w.ahead_ns(3000 * kUs), 45 * kUs, 8);
  EXPECT_EQ(w.ahead_ns(50 * kUs), 0);  // a band with no waits yet asks for nothing
  EXPECT_EQ(w.last_ns(), w.ahead_ns(3000 * kUs));
}

TEST(MountWakeAhead, ALongerOvershootMovesItsBandByAQuarterAShorterOneByASixteenth) {
  WakeAhead w(150 * kUs);
  w.learn(1000 * kUs, 80 * kUs);
  EXPECT_EQ(w.ahead_ns(1000 * kUs), 20 * kUs);
  w.learn(1000 * kUs, 0);
  EXPECT_EQ(w.ahead_ns(1000 * kUs), 18'750);
}

// Overshoots of 20 and 40 us in turn (mean 30): a late wake-up weighs four times an early one, so
// the band settles near 36 us, where 4 * (40 - 36) = 36 - 20, and most wake-ups come in time.
TEST(MountWakeAhead, UnevenOvershootsSettleAboveTheirMean) {
  WakeAhead w(150 * kUs);
  for (int i = 0; i < 400; ++i) w.learn(600 * kUs, (i % 2 == 0 ? 20 : 40) * kUs);
  EXPECT_GT(w.ahead_ns(600 * kUs), 33 * kUs);
  EXPECT_LT(w.ahead_ns(600 * kUs), 39 * kUs);
}

TEST(MountWakeAhead, OvershootIsClampedToTheCapAndNeverNegative) {
  WakeAhead w(150 * kUs);
  w.learn(1000 * kUs, 10'000 * kUs);  // a 10 ms hiccup counts as the cap
  EXPECT_EQ(w.ahead_ns(1000 * kUs), 150 * kUs / 4);
  w.learn(200 * kUs, -5 * kUs);  // woke before its deadline: counts as 0
  EXPECT_EQ(w.ahead_ns(200 * kUs), 0);
}

}  // namespace
}  // namespace diskcond::mount
