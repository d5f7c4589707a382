// What `rawio compare` prints: the side-by-side table with verdicts (text) or one JSON document.
// Pure formatting of comparisons already made.
#pragma once

#include <string>
#include <vector>

#include "rawio/compare/comparison.h"
#include "rawio/history/saved_run.h"

namespace diskcond::rawio::compare {

// One side as chosen: what the user typed (a run number or an ID) and the runs it stands for.
struct ChosenSide {
  std::string given;
  std::vector<history::SavedRun> runs;  // oldest first
};

// "A: plain, run 3 (/dev/sdb, 2026-11-30T06:51:01Z)" and B's line, the table
//   Test  Seconds  A IOPS [95% CI]  B IOPS [95% CI]  Change  p  Verdict
// notes on setups that differ, and a "Regression:" line per test beyond the threshold.
std::string format_comparison(const ChosenSide& a, const ChosenSide& b,
                              const std::vector<TestComparison>& tests,
                              const std::vector<std::string>& setup_notes,
                              const CompareOptions& options);

// {"tool", "version", "command": "compare", "metric", "alpha", "threshold", "seed",
//  "a": {"given", "runs"}, "b": ..., "tests": [{"test", "a": {"samples", "median", "ci_low",
//  "ci_high"}, "b": ..., "change", "u_a", "p", "exact", "verdict", "regression"}],
//  "setup_differences": [...], "regression": bool}
std::string format_comparison_json(const ChosenSide& a, const ChosenSide& b,
                                   const std::vector<TestComparison>& tests,
                                   const std::vector<std::string>& setup_notes,
                                   const CompareOptions& options);

}  // namespace diskcond::rawio::compare
