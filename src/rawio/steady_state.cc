#include "rawio/steady_state.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace diskcond::rawio {

WindowJudgement judge_window(std::span<const double> values, const SteadyStateRule& rule) {
  WindowJudgement j;
  const auto n = static_cast<double>(values.size());
  double sum = 0, min = values.front(), max = values.front();
  for (double v : values) {
    sum += v;
    min = std::min(min, v);
    max = std::max(max, v);
  }
  j.mean = sum / n;
  // Least squares over x = 0 .. n-1: slope = sum((x - x̄)(y - ȳ)) / sum((x - x̄)^2).
  const double x_mean = (n - 1) / 2;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const double dx = static_cast<double>(i) - x_mean;
    sxy += dx * (values[i] - j.mean);
    sxx += dx * dx;
  }
  const double slope = sxx > 0 ? sxy / sxx : 0;
  if (j.mean <= 0) {
    j.range_fraction = max > min ? std::numeric_limits<double>::infinity() : 0;
    j.slope_fraction = slope != 0 ? std::numeric_limits<double>::infinity() : 0;
    return j;  // nothing completed: never steady
  }
  j.range_fraction = (max - min) / j.mean;
  j.slope_fraction = std::fabs(slope) * (n - 1) / j.mean;
  j.steady = values.size() >= rule.rounds && j.range_fraction <= rule.max_range &&
             j.slope_fraction <= rule.max_slope;
  return j;
}

SteadyState detect_steady_state(std::span<const double> rounds, const SteadyStateRule& rule) {
  SteadyState s;
  s.rounds.assign(rounds.begin(), rounds.end());
  if (rounds.empty()) return s;
  for (size_t end = rule.rounds; end <= rounds.size(); ++end) {
    s.last = judge_window(rounds.subspan(end - rule.rounds, rule.rounds), rule);
    if (s.last.steady) {
      s.reached = true;
      s.reached_round = end;
      return s;
    }
  }
  if (rounds.size() < rule.rounds) s.last = judge_window(rounds, rule);
  return s;
}

std::vector<double> round_rates(std::span<const IntervalSample> seconds, int64_t measured_ns,
                                int64_t window_ns) {
  const auto per_round = static_cast<size_t>(window_ns / IntervalLog::kIntervalNs);
  const auto rounds = static_cast<size_t>(measured_ns / window_ns);
  std::vector<double> out;
  for (size_t r = 0; r < rounds; ++r) {
    uint64_t transfers = 0;
    for (size_t s = r * per_round; s < (r + 1) * per_round && s < seconds.size(); ++s)
      transfers += seconds[s].transfers;
    out.push_back(static_cast<double>(transfers) / static_cast<double>(per_round));
  }
  return out;
}

SteadyState steady_state_of(std::span<const IntervalSample> seconds, int64_t measured_ns,
                            int64_t window_ns, size_t max_rounds, const SteadyStateRule& rule) {
  SteadyState s;
  if (window_ns > 0) s = detect_steady_state(round_rates(seconds, measured_ns, window_ns), rule);
  s.window_ns = window_ns;
  s.max_rounds = max_rounds;
  return s;
}

int64_t default_window_ns(uint64_t first_second_transfers, uint64_t transfers_per_round) {
  if (first_second_transfers == 0) return 60 * IntervalLog::kIntervalNs;
  const uint64_t seconds =
      (transfers_per_round + first_second_transfers - 1) / first_second_transfers;
  return static_cast<int64_t>(std::clamp<uint64_t>(seconds, 1, 60)) * IntervalLog::kIntervalNs;
}

}  // namespace diskcond::rawio
