#include "rawio/compare/comparison.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace diskcond::rawio::compare {
namespace {

// Ten per-second samples of a device doing `iops` with 3% noise (one trial's draw).
std::vector<double> seconds_of(double iops, std::mt19937_64& rng) {
  std::normal_distribution<double> noise(1.0, 0.03);
  std::vector<double> out;
  for (int s = 0; s < 10; ++s) out.push_back(iops * noise(rng));
  return out;
}

TEST(RawioComparison, IdenticalSamplesAreNoSignificantDifference) {
  std::vector<double> a = {1000, 1010, 990, 1005, 995, 1002, 998, 1001, 999, 1003};
  TestComparison c = compare_samples(TestKind::kRandomRead, a, a, {});
  EXPECT_EQ(c.verdict, Verdict::kNoDifference);
  EXPECT_EQ(c.change, 0);
  EXPECT_FALSE(c.regression);
}

// Twenty seeded trials, trial t drawing from std::mt19937_64(first_seed + t) ten seconds of a
// device doing 1000 IOPS and then ten of one doing `b_iops`, compared with seed t.
std::vector<TestComparison> twenty_trials(uint64_t first_seed, double b_iops) {
  std::vector<TestComparison> out;
  for (uint64_t trial = 0; trial < 20; ++trial) {
    std::mt19937_64 rng(first_seed + trial);
    std::vector<double> a = seconds_of(1000, rng), b = seconds_of(b_iops, rng);
    CompareOptions options;
    options.seed = trial;
    out.push_back(compare_samples(TestKind::kRandomRead, a, b, options));
  }
  return out;
}

TEST(RawioComparison, SameDeviceTwiceIsNoSignificantDifferenceIn19Of20SeededTrials) {
  int same = 0;
  for (const TestComparison& c : twenty_trials(1000, 1000))
    if (c.verdict == Verdict::kNoDifference) ++same;
  EXPECT_GE(same, 19);
}

TEST(RawioComparison, ATenPercentSlowdownIsDetectedIn19Of20SeededTrials) {
  int slower = 0, regressions = 0;
  for (const TestComparison& c : twenty_trials(2000, 900)) {
    if (c.verdict == Verdict::kSlower) ++slower;
    if (c.regression) ++regressions;
    EXPECT_NEAR(c.change, -0.10, 0.05);
  }
  EXPECT_GE(slower, 19);
  EXPECT_GE(regressions, 19);  // beyond the default 5% threshold
}

TEST(RawioComparison, LatencyIsBetterLower) {
  std::vector<double> a = {100, 101, 102, 103, 104, 105}, b = {80, 81, 82, 83, 84, 85};
  CompareOptions options;
  options.metric = Metric::kP99;
  TestComparison c = compare_samples(TestKind::kRandomRead, a, b, options);
  EXPECT_EQ(c.verdict, Verdict::kFaster);
  EXPECT_NEAR(c.change, (82.5 - 102.5) / 102.5, 1e-12);
  TestComparison d = compare_samples(TestKind::kRandomRead, b, a, options);
  EXPECT_EQ(d.verdict, Verdict::kSlower);
  EXPECT_TRUE(d.regression);
}

TEST(RawioComparison, TooFewSamplesCannotBeSignificant) {
  // 4 against 4: the smallest p is 2/70 = 0.029, above alpha 0.01.
  EXPECT_NEAR(smallest_p(4, 4), 2.0 / 70, 1e-12);
  EXPECT_NEAR(smallest_p(5, 5), 2.0 / 252, 1e-12);
  std::vector<double> a = {1, 2, 3, 4}, b = {10, 20, 30, 40};
  EXPECT_EQ(compare_samples(TestKind::kRandomRead, a, b, {}).verdict, Verdict::kTooFewSamples);
}

TEST(RawioComparison, SamplesAreTheWholeSecondsOfEachTest) {
  RunResult t;
  t.elapsed_ns = 3'400'000'000;  // 3 whole seconds and a partial one
  t.intervals = {{0, 100}, {0, 0}, {0, 120}, {0, 40}};
  EXPECT_EQ(per_second_samples(t, Metric::kIops), (std::vector<double>{100, 0, 120}));
  LatencyHistogram h;
  h.record(5000);
  t.interval_latency = {h.sparse(), {}, h.sparse(), h.sparse()};
  EXPECT_EQ(per_second_samples(t, Metric::kP99), (std::vector<double>{5000, 5000}));
}

TEST(RawioComparison, ReportsArePooledPerTestAndSetupsCompared) {
  auto report = [](unsigned workers, uint64_t per_second) {
    TargetReport r;
    r.id = "x";
    for (TestKind kind : {TestKind::kRandomRead, TestKind::kSequentialRead}) {
      RunResult t;
      t.spec.kind = kind;
      t.spec.workers = workers;
      t.engine = "psync";
      t.elapsed_ns = 5'000'000'000;
      for (int s = 0; s < 5; ++s) t.intervals.push_back({0, per_second + s});
      r.tests.push_back(t);
    }
    return r;
  };
  std::vector<TargetReport> a = {report(8, 100), report(8, 100)}, b = {report(4, 50)};
  auto out = compare_reports(a, b, {});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].kind, TestKind::kRandomRead);
  EXPECT_EQ(out[0].a.size(), 10u);
  EXPECT_EQ(out[0].b.size(), 5u);
  EXPECT_EQ(out[0].verdict, Verdict::kSlower);
  auto notes = setup_differences(a, b);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0],
            "RR: A ran 16384 bytes, 8 workers, depth 1, psync, buffered, B ran 16384 bytes, 4 "
            "workers, depth 1, psync, buffered");
}

}  // namespace
}  // namespace diskcond::rawio::compare
