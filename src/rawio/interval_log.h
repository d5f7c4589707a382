// IntervalLog: bytes and transfers completed in each whole second of a test, counted from the
// test's common start. A later issue plots throughput over time from these and stores them.
//
// Capacity is fixed at construction (one slot per second of the time limit, plus one):
// add() never allocates; completions past the last slot count in the last slot.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace diskcond::rawio {

struct IntervalSample {
  uint64_t bytes = 0;
  uint64_t transfers = 0;
};

class IntervalLog {
 public:
  static constexpr int64_t kIntervalNs = 1'000'000'000;

  // REQUIRES: seconds >= 1.
  explicit IntervalLog(size_t seconds) : samples_(seconds) {}

  // Hot path. REQUIRES: start() was called; now_ns >= the start. Returns the slot counted in.
  size_t add(int64_t now_ns, uint64_t bytes) {
    size_t i = static_cast<size_t>((now_ns - start_ns_) / kIntervalNs);
    if (i >= samples_.size()) i = samples_.size() - 1;
    samples_[i].bytes += bytes;
    samples_[i].transfers += 1;
    if (i + 1 > used_) used_ = i + 1;
    return i;
  }
  void start(int64_t start_ns) { start_ns_ = start_ns; }

  // Adds other's seconds to this log's (both must share a start); grows to the longer one.
  void merge(const IntervalLog& other);
  // Seconds that saw completions, up to the last one; earlier idle seconds are zero samples.
  std::vector<IntervalSample> samples() const {
    return {samples_.begin(), samples_.begin() + static_cast<long>(used_)};
  }

 private:
  std::vector<IntervalSample> samples_;
  int64_t start_ns_ = 0;
  size_t used_ = 0;
};

// Slots needed for a test with this time limit: whole seconds rounded up, plus one.
size_t interval_slots(int64_t time_limit_ns);

}  // namespace diskcond::rawio
