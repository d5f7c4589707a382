// Comparing two sets of runs test by test: per-second samples of each, their medians with
// bootstrap confidence intervals, the relative change, a Mann-Whitney U test and a verdict. Pure:
// takes TargetReports (measured or loaded from the history), prints nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawio/compare/bootstrap.h"
#include "rawio/compare/mann_whitney.h"
#include "rawio/run_result.h"

namespace diskcond::rawio::compare {

// What is compared, one sample per whole second of each test: transfers completed in it (higher
// is better), or the 99th percentile of the latency of those transfers (lower is better).
enum class Metric { kIops, kP99 };
std::string_view metric_key(Metric metric);                // "iops", "p99"
std::optional<Metric> parse_metric(std::string_view key);  // the inverse

enum class Verdict { kFaster, kSlower, kNoDifference, kTooFewSamples };
std::string_view verdict_text(Verdict verdict);  // "faster", "slower", "no significant difference",
                                                 // "too few samples"

struct CompareOptions {
  Metric metric = Metric::kIops;
  double alpha = 0.01;      // significance level of the U test
  double threshold = 0.05;  // a significant slowdown larger than this is a regression
  uint64_t seed = 1;        // of the bootstrap
  int resamples = 2000;
};

struct TestComparison {
  TestKind kind = TestKind::kRandomRead;
  std::vector<double> a, b;  // the samples
  MedianCi a_median, b_median;
  double change = 0;  // (median b - median a) / median a; 0 when median a is 0
  MannWhitney test;
  Verdict verdict = Verdict::kTooFewSamples;
  bool regression = false;  // kSlower by more than the threshold
};

// One sample per whole second of the measured time (the last, partial second is left out; so are,
// for kP99, seconds without a completion).
std::vector<double> per_second_samples(const RunResult& test, Metric metric);

// The smallest two-sided p the U test can give for samples of m and n values (2 / C(m+n, m)):
// at or above alpha, no difference can be significant.
double smallest_p(size_t m, size_t n);

// Compares two sample sets of one test.
TestComparison compare_samples(TestKind kind, std::vector<double> a, std::vector<double> b,
                               const CompareOptions& options);

// Every test both sides ran, in the original's order, each side's samples pooled over its runs.
std::vector<TestComparison> compare_reports(std::span<const TargetReport> a,
                                            std::span<const TargetReport> b,
                                            const CompareOptions& options);

// Lines naming what differs between the two sides' tests (transfer size, workers, queue depth,
// engine, O_DIRECT, open-loop rate), which makes a comparison one of setups, not of runs.
std::vector<std::string> setup_differences(std::span<const TargetReport> a,
                                           std::span<const TargetReport> b);

}  // namespace diskcond::rawio::compare
