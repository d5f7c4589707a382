// `rawio compare`: the command line of the statistical comparison of saved runs. Parsing touches
// nothing; it turns the words after "compare" into a CompareInvocation or a one-line usage error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rawio/cli_rules.h"
#include "rawio/compare/comparison.h"

namespace diskcond::rawio::compare {

// One side of the comparison: a run number, or a row ID (its newest run, or its `last` newest).
struct Side {
  std::optional<int64_t> run_id;
  std::string label;  // when run_id is unset
};

struct CompareInvocation {
  std::string db_path;  // --db; empty: history::default_database_path()
  Side a, b;
  size_t last = 1;  // --last N: the N newest runs of each side given as an ID, pooled
  CompareOptions options;
  bool json = false;
  std::string plot_path;  // --plot; ends in .svg or .png
};

using ParsedCompareCommandLine = ParsedLine<CompareInvocation>;

// True when argv asks for the comparison ("rawio compare ...").
bool is_compare_command(int argc, const char* const* argv);
// REQUIRES: argv[0] is "compare" (pass argc - 1, argv + 1 of main's).
ParsedCompareCommandLine parse_compare_command_line(int argc, const char* const* argv);

}  // namespace diskcond::rawio::compare
