#include "rawio/compare/comparison.h"

#include <fmt/format.h>

#include <cmath>

namespace diskcond::rawio::compare {

std::string_view metric_key(Metric metric) {
  return metric == Metric::kIops ? "iops" : "p99";
}

std::optional<Metric> parse_metric(std::string_view key) {
  for (Metric m : {Metric::kIops, Metric::kP99}) {
    if (key == metric_key(m)) return m;
  }
  return std::nullopt;
}

std::string_view verdict_text(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
    case Verdict::kNoDifference:
      return "no significant difference";
    case Verdict::kTooFewSamples:
      return "too few samples";
  }
  return "?";
}

std::vector<double> per_second_samples(const RunResult& test, Metric metric) {
  const auto whole =
      std::min<size_t>(test.intervals.size(), static_cast<size_t>(test.elapsed_ns / 1'000'000'000));
  std::vector<double> out;
  for (size_t s = 0; s < whole; ++s) {
    if (metric == Metric::kIops) {
      out.push_back(static_cast<double>(test.intervals[s].transfers));
    } else if (s < test.interval_latency.size() && test.interval_latency[s].count > 0) {
      out.push_back(static_cast<double>(
          LatencyHistogram::restore(test.interval_latency[s]).percentile_ns(99)));
    }
  }
  return out;
}

double smallest_p(size_t m, size_t n) {
  if (m == 0 || n == 0) return 1;
  // 2 / C(m+n, m), as a double (it only needs to be compared with alpha).
  double arrangements = 1;
  for (size_t k = 1; k <= std::min(m, n); ++k)
    arrangements = arrangements * static_cast<double>(m + n - std::min(m, n) + k) / k;
  return std::min(1.0, 2 / arrangements);
}

TestComparison compare_samples(TestKind kind, std::vector<double> a, std::vector<double> b,
                               const CompareOptions& options) {
  TestComparison c;
  c.kind = kind;
  c.a = std::move(a);
  c.b = std::move(b);
  // Different seeds for the two sides, so that equal samples do not draw equal resamples.
  c.a_median = bootstrap_median(c.a, options.seed, options.resamples);
  c.b_median = bootstrap_median(c.b, options.seed ^ 0x9e3779b97f4a7c15ull, options.resamples);
  if (c.a_median.median != 0)
    c.change = (c.b_median.median - c.a_median.median) / c.a_median.median;
  c.test = mann_whitney(c.a, c.b);
  if (smallest_p(c.a.size(), c.b.size()) >= options.alpha) {
    c.verdict = Verdict::kTooFewSamples;
  } else if (c.test.p_two_sided >= options.alpha) {
    c.verdict = Verdict::kNoDifference;
  } else {
    // Higher is better for throughput, lower for latency.
    const bool b_higher = c.b_median.median > c.a_median.median ||
                          (c.b_median.median == c.a_median.median && c.test.u_b > c.test.u_a);
    const bool b_better = options.metric == Metric::kIops ? b_higher : !b_higher;
    c.verdict = b_better ? Verdict::kFaster : Verdict::kSlower;
  }
  c.regression = c.verdict == Verdict::kSlower && std::fabs(c.change) > options.threshold;
  return c;
}

std::vector<TestComparison> compare_reports(std::span<const TargetReport> a,
                                            std::span<const TargetReport> b,
                                            const CompareOptions& options) {
  auto pooled = [&](std::span<const TargetReport> side, TestKind kind, bool& found) {
    std::vector<double> samples;
    for (const TargetReport& r : side) {
      for (const RunResult& t : r.tests) {
        if (t.spec.kind != kind) continue;
        found = true;
        for (double v : per_second_samples(t, options.metric)) samples.push_back(v);
      }
    }
    return samples;
  };
  std::vector<TestComparison> out;
  for (TestKind kind : kAllTests) {
    bool in_a = false, in_b = false;
    std::vector<double> sa = pooled(a, kind, in_a), sb = pooled(b, kind, in_b);
    if (in_a && in_b) out.push_back(compare_samples(kind, std::move(sa), std::move(sb), options));
  }
  return out;
}

std::vector<std::string> setup_differences(std::span<const TargetReport> a,
                                           std::span<const TargetReport> b) {
  auto describe = [](const RunResult& t) {
    std::string rate = t.spec.open_loop() ? fmt::format(", --rate {}/s", t.spec.rate_per_sec) : "";
    return fmt::format("{} bytes, {} worker{}, depth {}, {}, {}{}", t.spec.transfer_bytes,
                       t.spec.workers, t.spec.workers == 1 ? "" : "s", t.iodepth, t.engine,
                       t.direct ? "O_DIRECT" : "buffered", rate);
  };
  auto setups = [&](std::span<const TargetReport> side, TestKind kind) {
    std::vector<std::string> found;
    for (const auto& r : side)
      for (const auto& t : r.tests)
        if (t.spec.kind == kind) found.push_back(describe(t));
    return found;
  };
  std::vector<std::string> out;
  for (TestKind kind : kAllTests) {
    std::vector<std::string> in_a = setups(a, kind), in_b = setups(b, kind);
    if (in_a.empty() || in_b.empty()) continue;
    for (const std::string& s : in_b) {
      if (s == in_a.front()) continue;
      out.push_back(fmt::format("{}: A ran {}, B ran {}", test_code(kind), in_a.front(), s));
      break;
    }
  }
  return out;
}

}  // namespace diskcond::rawio::compare
