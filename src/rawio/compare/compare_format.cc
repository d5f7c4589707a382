#include "rawio/compare/compare_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace diskcond::rawio::compare {
namespace {

using Row = std::vector<std::string>;

// Columns as wide as their widest cell; the first two left-aligned, the rest right-aligned,
// the last (the verdict) left-aligned.
std::string render(const std::vector<Row>& rows) {
  std::vector<size_t> width;
  for (const Row& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const Row& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      const bool left = c == 0 || c + 1 == row.size();
      if (c > 0) line += "  ";
      line += left ? fmt::format("{:<{}}", row[c], c + 1 == row.size() ? 0 : width[c])
                   : fmt::format("{:>{}}", row[c], width[c]);
    }
    out += line + "\n";
  }
  return out;
}

std::string value_text(double v, Metric metric) {
  return metric == Metric::kIops ? fmt::format("{:.1f}", v) : fmt::format("{:.1f}", v / 1000);
}

std::string ci_text(const MedianCi& ci, Metric metric) {
  return fmt::format("{} [{}, {}]", value_text(ci.median, metric), value_text(ci.low, metric),
                     value_text(ci.high, metric));
}

std::string p_text(double p) {
  return p < 0.0001 ? "<0.0001" : fmt::format("{:.4f}", p);
}

std::string side_line(const char* name, const ChosenSide& side) {
  std::string runs;
  for (const auto& r : side.runs) runs += fmt::format("{}{}", runs.empty() ? "" : ", ", r.run_id);
  const history::SavedRun& newest = side.runs.back();
  return fmt::format("{}: {}, run{} {} ({}, {})\n", name, newest.report.id,
                     side.runs.size() == 1 ? "" : "s", runs, newest.report.target,
                     newest.context.when_utc);
}

nlohmann::json side_json(const ChosenSide& side) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : side.runs) runs.push_back(r.run_id);
  return {{"given", side.given}, {"runs", runs}};
}

nlohmann::json samples_json(const std::vector<double>& samples, const MedianCi& ci) {
  return {{"samples", samples}, {"median", ci.median}, {"ci_low", ci.low}, {"ci_high", ci.high}};
}

}  // namespace

std::string format_comparison(const ChosenSide& a, const ChosenSide& b,
                              const std::vector<TestComparison>& tests,
                              const std::vector<std::string>& setup_notes,
                              const CompareOptions& options) {
  std::string out = side_line("A", a) + side_line("B", b);
  const std::string unit = options.metric == Metric::kIops ? "IOPS" : "p99 us";
  std::vector<Row> rows = {{"Test", "Seconds", "A " + unit + " [95% CI]", "B " + unit + " [95% CI]",
                            "Change", "p", "Verdict"}};
  for (const TestComparison& t : tests) {
    rows.push_back({std::string(test_code(t.kind)), fmt::format("{}/{}", t.a.size(), t.b.size()),
                    ci_text(t.a_median, options.metric), ci_text(t.b_median, options.metric),
                    fmt::format("{:+.1f}%", t.change * 100), p_text(t.test.p_two_sided),
                    std::string(verdict_text(t.verdict))});
  }
  out += tests.empty() ? "no test was run by both A and B\n" : render(rows);
  for (const std::string& note : setup_notes) out += "Note: setups differ: " + note + "\n";
  for (const TestComparison& t : tests) {
    if (t.verdict == Verdict::kTooFewSamples)
      out += fmt::format(
          "Note: {} has {} and {} whole seconds: too few for a difference to be significant at "
          "alpha {} (run longer tests, or more of them with --repeat)\n",
          test_code(t.kind), t.a.size(), t.b.size(), options.alpha);
    if (t.regression)
      out += fmt::format("Regression: {} is {:.1f}% slower in B, beyond the {:.1f}% threshold\n",
                         test_code(t.kind), std::fabs(t.change) * 100, options.threshold * 100);
  }
  return out;
}

std::string format_comparison_json(const ChosenSide& a, const ChosenSide& b,
                                   const std::vector<TestComparison>& tests,
                                   const std::vector<std::string>& setup_notes,
                                   const CompareOptions& options) {
  nlohmann::json list = nlohmann::json::array();
  bool regression = false;
  for (const TestComparison& t : tests) {
    regression = regression || t.regression;
    list.push_back({{"test", std::string(test_code(t.kind))},
                    {"a", samples_json(t.a, t.a_median)},
                    {"b", samples_json(t.b, t.b_median)},
                    {"change", t.change},
                    {"u_a", t.test.u_a},
                    {"p", t.test.p_two_sided},
                    {"exact", t.test.exact},
                    {"verdict", std::string(verdict_text(t.verdict))},
                    {"regression", t.regression}});
  }
  nlohmann::json doc = {{"tool", "rawio"},
                        {"version", DISKCOND_VERSION},
                        {"command", "compare"},
                        {"metric", std::string(metric_key(options.metric))},
                        {"alpha", options.alpha},
                        {"threshold", options.threshold},
                        {"seed", options.seed},
                        {"a", side_json(a)},
                        {"b", side_json(b)},
                        {"tests", list},
                        {"setup_differences", setup_notes},
                        {"regression", regression}};
  return doc.dump(2) + "\n";
}

}  // namespace diskcond::rawio::compare
