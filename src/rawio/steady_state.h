// Steady state in the manner of SNIA's Performance Test Specification: a test is measured in
// rounds (windows) of equal length, and is steady once, over the last five rounds, the range of
// the per-round throughput is within 20% of its mean and the excursion of its least-squares line
// (the slope times the rounds spanned, four) within 10% of the mean. Pure: the detector works on
// a list of per-round values; SteadyState is what a test reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "rawio/interval_log.h"

namespace diskcond::rawio {

struct SteadyStateRule {
  size_t rounds = 5;        // the measurement window, in rounds
  double max_range = 0.20;  // (max - min) / mean
  double max_slope = 0.10;  // |least-squares slope| * (rounds - 1) / mean
};

// One measurement window judged.
struct WindowJudgement {
  double mean = 0;
  double range_fraction = 0;  // (max - min) / mean (infinite for a mean of 0 with a range)
  double slope_fraction = 0;  // |slope| * (n - 1) / mean
  bool steady = false;        // both within the rule; never for a mean of 0
};

// REQUIRES: values not empty.
WindowJudgement judge_window(std::span<const double> values, const SteadyStateRule& rule);

struct SteadyState {
  int64_t window_ns = 0;       // the length of a round
  size_t max_rounds = 0;       // the test stops after this many rounds, steady or not
  std::vector<double> rounds;  // transfers per second in each whole round, in order
  bool reached = false;
  size_t reached_round = 0;  // when reached: the 1-based round ending the first steady window
  WindowJudgement last;      // the window judged last (the steady one, or the last five)
};

// The first window of rule.rounds consecutive rounds that is steady, judged in order; when none
// is, `last` is the judgement of the last rule.rounds rounds (of all of them when fewer).
// window_ns and max_rounds are left for the caller.
SteadyState detect_steady_state(std::span<const double> rounds, const SteadyStateRule& rule);

// Transfers per second in each whole window of `window_ns` (a whole number of seconds) from a
// test's per-second samples, counting only the `measured_ns` the test ran (a partial last window
// is left out). REQUIRES: window_ns a positive multiple of IntervalLog::kIntervalNs.
std::vector<double> round_rates(std::span<const IntervalSample> seconds, int64_t measured_ns,
                                int64_t window_ns);

// A finished test's steady state: its rounds from its per-second samples, judged.
SteadyState steady_state_of(std::span<const IntervalSample> seconds, int64_t measured_ns,
                            int64_t window_ns, size_t max_rounds, const SteadyStateRule& rule = {});

// The default round length when none is given: long enough for about `transfers_per_round`
// transfers at the rate seen in the first second (at least 1 s, at most 60 s, whole seconds),
// so that a slow disk's rounds are not mostly noise. 60 s when nothing completed.
int64_t default_window_ns(uint64_t first_second_transfers, uint64_t transfers_per_round = 1000);

}  // namespace diskcond::rawio
