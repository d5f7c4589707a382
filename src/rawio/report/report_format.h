// What `rawio report` prints besides rawio's own tables (which come from make_text_formatter on
// the rebuilt TargetReports): the --list table and the JSON documents. Pure formatting.
#pragma once

#include <string>
#include <vector>

#include "rawio/history/saved_run.h"

namespace diskcond::rawio::report {

// One row per saved run: "Run  When  Host  Target  ID  Tests", columns as wide as their widest
// value; "no saved runs" line when empty.
std::string format_run_list(const std::vector<history::RunSummary>& runs);
// {"runs": [{"run", "when_utc", "host", "target", "id", "tests": [...]}, ...]}
std::string format_run_list_json(const std::vector<history::RunSummary>& runs);
// {"tool": "rawio", "version", "runs": [{"run", "when_utc", "host", "kernel", "engine",
//  "options" (as saved), "target" (as in rawio --json, with "id" the row label)}]}
// REQUIRES: labels.size() == runs.size().
std::string format_report_json(const std::vector<history::SavedRun>& runs,
                               const std::vector<std::string>& labels);

}  // namespace diskcond::rawio::report
