#include "rawio/steady_state_watch.h"

namespace diskcond::rawio {

int64_t SteadyStateWatch::next_check_ns() const {
  if (window_ns_ == 0) return IntervalLog::kIntervalNs;
  return static_cast<int64_t>(rounds_.size() + 1) * window_ns_;
}

RunWatcher::Decision SteadyStateWatch::check(int64_t measured_ns, uint64_t transfers) {
  if (window_ns_ == 0) {
    if (measured_ns < IntervalLog::kIntervalNs) return Decision::kContinue;
    window_ns_ = default_window_ns(transfers);  // the first second counts in round 1
  }
  const auto ended = static_cast<size_t>(measured_ns / window_ns_);
  if (ended <= rounds_.size()) return Decision::kContinue;
  // Rounds ended since the last call (more than one only if this thread was held up) share the
  // transfers evenly.
  const size_t count = ended - rounds_.size();
  const double per_round = static_cast<double>(transfers - transfers_at_last_round_) /
                           static_cast<double>(count) / (static_cast<double>(window_ns_) / 1e9);
  for (size_t i = 0; i < count; ++i) rounds_.push_back(per_round);
  transfers_at_last_round_ = transfers;
  if (rounds_.size() >= rule_.rounds &&
      judge_window(std::span<const double>(rounds_).last(rule_.rounds), rule_).steady)
    return Decision::kSteady;
  if (rounds_.size() >= max_rounds_) return Decision::kGiveUp;
  return Decision::kContinue;
}

}  // namespace diskcond::rawio
