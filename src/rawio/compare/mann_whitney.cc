#include "rawio/compare/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace diskcond::rawio::compare {
namespace {

// P(U <= u) under the null hypothesis with no ties: the share of the C(m+n, m) arrangements of
// m a's and n b's with at most u pairs (a, b) where a > b. counts[k][u] is built up over the
// values added in increasing order (the recurrence f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u)).
double exact_cdf(size_t m, size_t n, size_t u) {
  // f[i][j] is the distribution (a vector over u) for i a's and j b's.
  std::vector<std::vector<std::vector<double>>> f(m + 1, std::vector<std::vector<double>>(n + 1));
  for (size_t i = 0; i <= m; ++i) {
    for (size_t j = 0; j <= n; ++j) {
      std::vector<double>& d = f[i][j];
      d.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        d[0] = 1;
        continue;
      }
      // The largest value is an a (beating all j b's) or a b (beating none).
      const auto& with_a = f[i - 1][j];
      const auto& with_b = f[i][j - 1];
      for (size_t k = 0; k < with_a.size(); ++k) d[k + j] += with_a[k];
      for (size_t k = 0; k < with_b.size(); ++k) d[k] += with_b[k];
    }
  }
  const std::vector<double>& d = f[m][n];
  double total = 0, below = 0;
  for (size_t k = 0; k < d.size(); ++k) {
    total += d[k];
    if (k <= u) below += d[k];
  }
  return below / total;
}

}  // namespace

MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b) {
  MannWhitney r;
  const size_t m = a.size(), n = b.size();
  if (m == 0 || n == 0) return r;
  std::vector<std::pair<double, bool>> all;  // (value, from a)
  for (double v : a) all.emplace_back(v, true);
  for (double v : b) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double average_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k) {
      if (all[k].second) rank_sum_a += average_rank;
    }
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  r.u_a = rank_sum_a - md * (md + 1) / 2;
  r.u_b = md * nd - r.u_a;
  const double u = std::min(r.u_a, r.u_b);
  if (!ties && m <= kExactLimit && n <= kExactLimit) {
    r.exact = true;
    r.p_two_sided = std::min(1.0, 2 * exact_cdf(m, n, static_cast<size_t>(u)));
    return r;
  }
  const double total = md + nd;
  const double variance = md * nd / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (variance <= 0) return r;  // every value equal: no evidence of a difference
  const double z = std::max(0.0, std::fabs(r.u_a - md * nd / 2) - 0.5) / std::sqrt(variance);
  r.p_two_sided = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

}  // namespace diskcond::rawio::compare
