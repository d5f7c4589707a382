// Medians with bootstrap confidence intervals. Pure and seeded: the same samples and seed give
// the same interval.
#pragma once

#include <cstdint>
#include <span>

namespace diskcond::rawio::compare {

// The median: the middle value, or the mean of the two middle values. 0 for no values.
double median(std::span<const double> values);

struct MedianCi {
  double median = 0;
  double low = 0;  // the interval's ends; equal to the median for fewer than 2 values
  double high = 0;
};

// The percentile bootstrap: `resamples` samples of |values| drawn with replacement (xoshiro256**
// seeded with `seed`), the median of each, and the (1-confidence)/2 and (1+confidence)/2
// quantiles of those medians (the resampled medians sorted, ranks floor(q * R) and
// ceil(q' * R) - 1). REQUIRES: resamples >= 1, 0 < confidence < 1.
MedianCi bootstrap_median(std::span<const double> values, uint64_t seed, int resamples = 2000,
                          double confidence = 0.95);

}  // namespace diskcond::rawio::compare
