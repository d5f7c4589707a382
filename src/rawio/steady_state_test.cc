#include "rawio/steady_state.h"

#include <gtest/gtest.h>

#include <vector>

#include "rawio/steady_state_watch.h"

namespace diskcond::rawio {
namespace {

TEST(RawioSteadyState, FlatRoundsAreSteady) {
  std::vector<double> flat = {100, 100, 100, 100, 100};
  WindowJudgement j = judge_window(flat, {});
  EXPECT_TRUE(j.steady);
  EXPECT_EQ(j.mean, 100);
  EXPECT_EQ(j.range_fraction, 0);
  EXPECT_EQ(j.slope_fraction, 0);
}

TEST(RawioSteadyState, ARiseWithinTheRangeFailsOnTheSlope) {
  // Mean 110, range 20/110 = 18.2% (within 20%), slope 5 a round: 5 * 4 / 110 = 18.2% (> 10%).
  std::vector<double> rising = {100, 105, 110, 115, 120};
  WindowJudgement j = judge_window(rising, {});
  EXPECT_FALSE(j.steady);
  EXPECT_DOUBLE_EQ(j.mean, 110);
  EXPECT_DOUBLE_EQ(j.range_fraction, 20.0 / 110);
  EXPECT_DOUBLE_EQ(j.slope_fraction, 20.0 / 110);
}

TEST(RawioSteadyState, NoiseWithoutTrendIsSteadyAndTooWideARangeIsNot) {
  // Mean 102, range 15/102; slope: sum((x - 2)(y - 102)) / 10 = -5 / 10 = -0.5 a round.
  std::vector<double> noisy = {100, 110, 95, 105, 100};
  WindowJudgement j = judge_window(noisy, {});
  EXPECT_TRUE(j.steady);
  EXPECT_DOUBLE_EQ(j.range_fraction, 15.0 / 102);
  EXPECT_DOUBLE_EQ(j.slope_fraction, 0.5 * 4 / 102);
  std::vector<double> wide = {100, 120, 90, 110, 100};  // range 30/104 = 28.8%
  EXPECT_FALSE(judge_window(wide, {}).steady);
  std::vector<double> idle = {0, 0, 0, 0, 0};
  EXPECT_FALSE(judge_window(idle, {}).steady);
  std::vector<double> few = {100, 100, 100};  // fewer rounds than the window
  EXPECT_FALSE(judge_window(few, {}).steady);
}

TEST(RawioSteadyState, TheFirstSteadyWindowIsReported) {
  std::vector<double> rounds = {50, 80, 100, 110, 95, 105, 100, 100};
  SteadyState s = detect_steady_state(rounds, {});
  EXPECT_TRUE(s.reached);
  EXPECT_EQ(s.reached_round, 7u);  // rounds 3-7: 100 110 95 105 100
  EXPECT_DOUBLE_EQ(s.last.mean, 102);
  std::vector<double> climbing = {10, 20, 30, 40, 50, 60};
  SteadyState never = detect_steady_state(climbing, {});
  EXPECT_FALSE(never.reached);
  EXPECT_DOUBLE_EQ(never.last.mean, 40);  // the last five: 20..60
}

TEST(RawioSteadyState, RoundsFromWholeSecondsAndTheDefaultWindow) {
  std::vector<IntervalSample> seconds;
  for (uint64_t t : {10, 20, 30, 40, 50, 60, 70}) seconds.push_back({t * 4096, t});
  EXPECT_EQ(round_rates(seconds, 7'500'000'000, 2'000'000'000), (std::vector<double>{15, 35, 55}));
  EXPECT_EQ(default_window_ns(17000), 1'000'000'000);
  EXPECT_EQ(default_window_ns(54), 19'000'000'000);  // ceil(1000 / 54) s for the seed's disk
  EXPECT_EQ(default_window_ns(10), 60'000'000'000);
  EXPECT_EQ(default_window_ns(0), 60'000'000'000);
}

TEST(RawioSteadyStateWatch, StopsWhenSteadyOrAtTheMostRounds) {
  SteadyStateWatch steady(1'000'000'000, 25);
  uint64_t transfers = 0;
  RunWatcher::Decision d = RunWatcher::Decision::kContinue;
  int64_t t = 0;
  while (d == RunWatcher::Decision::kContinue) {
    t = steady.next_check_ns();
    transfers += 1000;
    d = steady.check(t, transfers);
  }
  EXPECT_EQ(d, RunWatcher::Decision::kSteady);
  EXPECT_EQ(t, 5'000'000'000);
  EXPECT_EQ(steady.rounds(), (std::vector<double>{1000, 1000, 1000, 1000, 1000}));

  SteadyStateWatch climbing(2'000'000'000, 6);
  transfers = 0;
  d = RunWatcher::Decision::kContinue;
  for (uint64_t r = 1; d == RunWatcher::Decision::kContinue; ++r) {
    transfers += 1000 * r;
    d = climbing.check(climbing.next_check_ns(), transfers);
  }
  EXPECT_EQ(d, RunWatcher::Decision::kGiveUp);
  EXPECT_EQ(climbing.rounds().size(), 6u);
  EXPECT_EQ(climbing.rounds().front(), 500);  // 1000 transfers in 2 s

  SteadyStateWatch chosen(0, 25);  // the window comes from the first second
  EXPECT_EQ(chosen.next_check_ns(), 1'000'000'000);
  EXPECT_EQ(chosen.check(1'000'000'000, 100), RunWatcher::Decision::kContinue);
  EXPECT_EQ(chosen.window_ns(), 10'000'000'000);
  EXPECT_EQ(chosen.next_check_ns(), 10'000'000'000);
}

}  // namespace
}  // namespace diskcond::rawio
