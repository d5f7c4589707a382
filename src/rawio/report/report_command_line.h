// `rawio report`: the command line of the history report. Parsing touches nothing; it turns the
// words after "report" into a ReportInvocation or a one-line usage error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rawio/cli_rules.h"
#include "rawio/formatter.h"

namespace diskcond::rawio::report {

// Which saved runs to show. See select_runs() for how the three combine.
struct RunSelection {
  std::vector<int64_t> run_ids;     // RUN...
  std::vector<std::string> labels;  // --id
  std::optional<size_t> last;       // --last N
};

struct ReportInvocation {
  std::string db_path;  // --db; empty: history::default_database_path()
  RunSelection selection;
  int verbosity = 0;  // as rawio -v: 0 summary table, 1 rows per test, 2 adds latency
  bool json = false;
  Units units = Units::kKib;  // --units, as rawio
  bool list = false;          // --list: the saved runs instead of a report
  std::string plot_path;      // --plot; ends in .svg or .png
};

using ParsedReportCommandLine = ParsedLine<ReportInvocation>;

// True when argv asks for the report ("rawio report ..."); the run command line is unchanged.
bool is_report_command(int argc, const char* const* argv);
// REQUIRES: argv[0] is "report" (pass argc - 1, argv + 1 of main's).
ParsedReportCommandLine parse_report_command_line(int argc, const char* const* argv);

}  // namespace diskcond::rawio::report
