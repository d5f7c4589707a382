#include "rawio/arrival_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace diskcond::rawio {
namespace {

std::vector<int64_t> draw(ArrivalSchedule& s, size_t n) {
  std::vector<int64_t> times(n);
  for (auto& t : times) t = s.next_ns();
  return times;
}

TEST(ArrivalSchedule, FixedIsExactlyOneOverTheRateApart) {
  ArrivalSchedule one(Arrival::kFixed, 1000, 1, 0, 1);
  EXPECT_EQ(draw(one, 4), (std::vector<int64_t>{0, 1'000'000, 2'000'000, 3'000'000}));
  ArrivalSchedule third(Arrival::kFixed, 3, 1, 0, 1);  // 1/3 s: truncated to the nanosecond
  EXPECT_EQ(draw(third, 4), (std::vector<int64_t>{0, 333'333'333, 666'666'666, 1'000'000'000}));
  ArrivalSchedule late(Arrival::kFixed, 1000, 1, 0, 1);
  for (int i = 0; i < 86'400'000; i += 1000) late.next_ns();  // far into a day-long test
  EXPECT_EQ(late.next_ns(), 86'400'000'000'000 / 1000);
}

TEST(ArrivalSchedule, FixedWorkersTakeTurnsSoTheirTimesMergeIntoTheWholeSchedule) {
  // 4 workers sharing 1000/s: worker w issues at w ms, w + 4 ms, ...; merged, one every 1 ms.
  std::vector<int64_t> merged;
  for (unsigned w = 0; w < 4; ++w) {
    ArrivalSchedule s(Arrival::kFixed, 1000, 4, w, 1);
    std::vector<int64_t> times = draw(s, 3);
    EXPECT_EQ(times,
              (std::vector<int64_t>{w * 1'000'000, (w + 4) * 1'000'000, (w + 8) * 1'000'000}));
    merged.insert(merged.end(), times.begin(), times.end());
  }
  std::sort(merged.begin(), merged.end());
  for (size_t i = 0; i < merged.size(); ++i) EXPECT_EQ(merged[i], int64_t(i) * 1'000'000);
}

// Gaps of one worker's Poisson schedule, in units of their expected mean.
std::vector<double> poisson_gaps(double rate, unsigned workers, uint64_t seed, size_t n) {
  ArrivalSchedule s(Arrival::kPoisson, rate, workers, 0, seed);
  const double mean_ns = 1e9 / rate * workers;
  std::vector<double> gaps(n);
  int64_t last = 0;
  for (auto& g : gaps) {
    int64_t t = s.next_ns();
    EXPECT_GE(t, last);
    g = static_cast<double>(t - last) / mean_ns;
    last = t;
  }
  return gaps;
}

TEST(ArrivalSchedule, PoissonGapsAverageOneOverTheRatePerWorker) {
  for (unsigned workers : {1u, 8u}) {
    std::vector<double> gaps = poisson_gaps(2000, workers, 1, 100'000);
    double mean = 0;
    for (double g : gaps) mean += g;
    mean /= static_cast<double>(gaps.size());
    EXPECT_NEAR(mean, 1.0, 0.02) << workers << " workers";
  }
}

TEST(ArrivalSchedule, PoissonGapsAreExponential) {
  // Kolmogorov-Smirnov against 1 - exp(-x): at 100k samples the 0.1% critical value is
  // 1.95 / sqrt(n) = 0.0062. Uniform gaps of the same mean (or fixed ones) are far off it.
  std::vector<double> gaps = poisson_gaps(5000, 2, 7, 100'000);
  std::sort(gaps.begin(), gaps.end());
  const double n = static_cast<double>(gaps.size());
  double d = 0;
  for (size_t i = 0; i < gaps.size(); ++i) {
    double f = 1 - std::exp(-gaps[i]);
    d = std::max({d, std::abs(f - static_cast<double>(i) / n),
                  std::abs(static_cast<double>(i + 1) / n - f)});
  }
  EXPECT_LT(d, 1.95 / std::sqrt(n));
  // And the tails an exponential has: about e^-3 = 5% of gaps above 3 means.
  size_t above3 = static_cast<size_t>(gaps.end() - std::upper_bound(gaps.begin(), gaps.end(), 3.0));
  EXPECT_NEAR(static_cast<double>(above3) / n, std::exp(-3.0), 0.003);
}

TEST(ArrivalSchedule, PoissonSameSeedSameTimesOtherSeedOrWorkerOthers) {
  ArrivalSchedule a(Arrival::kPoisson, 1000, 2, 0, 42);
  ArrivalSchedule b(Arrival::kPoisson, 1000, 2, 0, 42);
  ArrivalSchedule other_seed(Arrival::kPoisson, 1000, 2, 0, 43);
  ArrivalSchedule other_worker(Arrival::kPoisson, 1000, 2, 1, 42);
  std::vector<int64_t> times = draw(a, 1000);
  EXPECT_EQ(draw(b, 1000), times);
  EXPECT_NE(draw(other_seed, 1000), times);
  EXPECT_NE(draw(other_worker, 1000), times);
}

TEST(ArrivalKeys, RoundTripAndRejectOthers) {
  for (Arrival a : {Arrival::kFixed, Arrival::kPoisson})
    EXPECT_EQ(parse_arrival(arrival_key(a)), a);
  EXPECT_EQ(arrival_key(Arrival::kPoisson), "poisson");
  EXPECT_FALSE(parse_arrival("foo"));
  EXPECT_FALSE(parse_arrival(""));
  EXPECT_FALSE(parse_arrival("Fixed"));
}

}  // namespace
}  // namespace diskcond::rawio
