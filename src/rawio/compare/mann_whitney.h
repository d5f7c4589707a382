// The Mann-Whitney U test (Wilcoxon rank-sum): are two samples from the same distribution, or
// does one tend to be larger? Pure; no assumption of normality, which per-second throughput
// samples (skewed, with outliers) do not meet.
#pragma once

#include <span>

namespace diskcond::rawio::compare {

struct MannWhitney {
  double u_a = 0;  // pairs (a, b) with a > b, ties counting one half
  double u_b = 0;  // u_a + u_b = |a| * |b|
  double p_two_sided = 1;
  bool exact = false;  // the exact distribution of U (small samples, no ties), else normal
};

// Average ranks for ties. p is exact (by counting every arrangement) when there are no ties and
// both samples have at most kExactLimit values; otherwise the normal approximation with the tie
// correction and a continuity correction of 1/2. Empty a or b: p = 1.
inline constexpr size_t kExactLimit = 40;
MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b);

}  // namespace diskcond::rawio::compare
