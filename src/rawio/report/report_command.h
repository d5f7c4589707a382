// The `rawio report` command: opens the history database, chooses runs and prints them side by
// side with rawio's text formatter (or JSON), optionally drawing them. Results go to `out`,
// errors to `err` as one line each.
#pragma once

#include <cstdio>

#include "rawio/report/report_command_line.h"

namespace diskcond::rawio::report {

// Returns the exit code: 0 ok, 1 the database could not be read or the plot not written,
// 2 an unknown run or ID (kExitUsage).
int run_report(const ReportInvocation& invocation, std::FILE* out, std::FILE* err);

}  // namespace diskcond::rawio::report
