#include "rawio/compare/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "rawio/offsets.h"

namespace diskcond::rawio::compare {

double median(std::span<const double> values) {
  if (values.empty()) return 0;
  std::vector<double> v(values.begin(), values.end());
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(mid), v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double upper = v[mid];
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<long>(mid));
  return (lower + upper) / 2;
}

MedianCi bootstrap_median(std::span<const double> values, uint64_t seed, int resamples,
                          double confidence) {
  MedianCi ci;
  ci.median = median(values);
  ci.low = ci.high = ci.median;
  if (values.size() < 2) return ci;
  Random64 rng(seed);
  std::vector<double> medians, sample(values.size());
  medians.reserve(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    for (double& x : sample) x = values[rng.below(values.size())];
    medians.push_back(median(sample));
  }
  std::sort(medians.begin(), medians.end());
  const double tail = (1 - confidence) / 2;
  const auto count = static_cast<double>(medians.size());
  const auto low = static_cast<size_t>(std::floor(tail * count));
  const auto high = static_cast<size_t>(std::ceil((1 - tail) * count)) - 1;
  ci.low = medians[std::min(low, medians.size() - 1)];
  ci.high = medians[std::min(high, medians.size() - 1)];
  return ci;
}

}  // namespace diskcond::rawio::compare
