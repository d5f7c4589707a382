// IntervalHistograms: one worker's latency histogram for each second of a test, kept sparse, so
// that intervals (and runs) can be merged later by adding buckets.
//
// The hot path records into one dense histogram for the current second. When a completion falls
// in a later second, the finished second is drained into its sparse form: once per second, not
// per transfer (it scans the buckets between that second's min and max and allocates its list).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rawio/latency_histogram.h"

namespace diskcond::rawio {

class IntervalHistograms {
 public:
  // REQUIRES: slots >= 1 (interval_slots() of the test, as IntervalLog).
  explicit IntervalHistograms(size_t slots) : seconds_(slots) {}

  // Hot path. REQUIRES: second < slots (IntervalLog::add's return value).
  void record(size_t second, uint64_t ns) {
    if (second != current_) [[unlikely]]
      roll(second);
    current_hist_.record(ns);
  }
  // Drains the second in progress; call once the worker has stopped recording.
  void finish() { roll(current_); }
  // Touches the dense histogram's pages before the test, so record() takes no page fault.
  void prefault() { current_hist_.prefault(); }

  // One per slot; seconds that saw nothing are empty. REQUIRES: finish() was called.
  const std::vector<SparseHistogram>& seconds() const { return seconds_; }

 private:
  void roll(size_t second);

  LatencyHistogram current_hist_;
  size_t current_ = 0;
  std::vector<SparseHistogram> seconds_;
};

// Several workers' seconds added up second by second, `seconds` long (shorter inputs count as
// empty); also adds every sample to `total`.
std::vector<SparseHistogram> merge_seconds(const std::vector<const IntervalHistograms*>& workers,
                                           size_t seconds, LatencyHistogram& total);

}  // namespace diskcond::rawio
