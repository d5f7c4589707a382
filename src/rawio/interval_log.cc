#include "rawio/interval_log.h"

#include <algorithm>

namespace diskcond::rawio {

void IntervalLog::merge(const IntervalLog& other) {
  if (other.samples_.size() > samples_.size()) samples_.resize(other.samples_.size());
  for (size_t i = 0; i < other.used_; ++i) {
    samples_[i].bytes += other.samples_[i].bytes;
    samples_[i].transfers += other.samples_[i].transfers;
  }
  used_ = std::max(used_, other.used_);
}

size_t interval_slots(int64_t time_limit_ns) {
  return static_cast<size_t>((time_limit_ns + IntervalLog::kIntervalNs - 1) /
                             IntervalLog::kIntervalNs) +
         1;
}

}  // namespace diskcond::rawio
