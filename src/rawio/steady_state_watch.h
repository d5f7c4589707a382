// SteadyStateWatch: decides, while a --steady-state test runs, when to stop it: once the rounds
// seen so far are steady (steady_state.h), or after the most rounds allowed. It sees only the
// workers' progress counters, sampled by the runner at round boundaries; the steady state a test
// reports is judged afterwards on its exact per-second samples (round_rates), which can disagree,
// and then the report says "not reached".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rawio/runner.h"
#include "rawio/steady_state.h"

namespace diskcond::rawio {

class SteadyStateWatch final : public RunWatcher {
 public:
  // window_ns: the round length, a whole number of seconds, or 0 to choose it after the first
  // second (default_window_ns). REQUIRES: max_rounds >= rule.rounds.
  SteadyStateWatch(int64_t window_ns, size_t max_rounds, SteadyStateRule rule = {})
      : window_ns_(window_ns), max_rounds_(max_rounds), rule_(rule) {}

  int64_t next_check_ns() const override;
  Decision check(int64_t measured_ns, uint64_t transfers) override;

  // The round length in effect (0 until chosen).
  int64_t window_ns() const { return window_ns_; }
  const std::vector<double>& rounds() const { return rounds_; }

 private:
  int64_t window_ns_;
  size_t max_rounds_;
  SteadyStateRule rule_;
  std::vector<double> rounds_;
  uint64_t transfers_at_last_round_ = 0;
};

}  // namespace diskcond::rawio
