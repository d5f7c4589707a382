// The `rawio compare` command: opens the history database, loads the two sides' runs, compares
// them test by test and prints the table (or JSON), optionally drawing the runs. Results go to
// `out`, errors to `err` as one line each.
#pragma once

#include <cstdio>

#include "rawio/compare/compare_command_line.h"

namespace diskcond::rawio::compare {

// Returns the exit code: 0 no regression, 1 the database could not be read or the plot not
// written, 2 an unknown run or ID, 4 (kExitRegression) a significant regression beyond the
// threshold in some test.
int run_compare(const CompareInvocation& invocation, std::FILE* out, std::FILE* err);

}  // namespace diskcond::rawio::compare
