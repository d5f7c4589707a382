#include "rawio/interval_histograms.h"

namespace diskcond::rawio {

void IntervalHistograms::roll(size_t second) {
  if (current_hist_.count() > 0) {
    SparseHistogram drained = current_hist_.drain();
    SparseHistogram& slot = seconds_[current_];
    if (slot.count == 0) {
      slot = std::move(drained);
    } else {  // a second revisited (completions out of order across a boundary): add it up
      LatencyHistogram sum = LatencyHistogram::restore(slot);
      sum.merge(drained);
      slot = sum.sparse();
    }
  }
  current_ = second;
}

std::vector<SparseHistogram> merge_seconds(const std::vector<const IntervalHistograms*>& workers,
                                           size_t seconds, LatencyHistogram& total) {
  std::vector<SparseHistogram> out(seconds);
  LatencyHistogram scratch;
  for (size_t s = 0; s < seconds; ++s) {
    for (const IntervalHistograms* w : workers) {
      if (s < w->seconds().size()) scratch.merge(w->seconds()[s]);
    }
    out[s] = scratch.drain();
    total.merge(out[s]);
  }
  return out;
}

}  // namespace diskcond::rawio
