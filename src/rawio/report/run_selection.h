// Choosing saved runs for `rawio report`. Pure: works on the list of saved runs.
#pragma once

#include <cstdint>
#include <vector>

#include "core/result.h"
#include "rawio/history/saved_run.h"
#include "rawio/report/report_command_line.h"

namespace diskcond::rawio::report {

// The run ids to show, in this order, without duplicates:
//   1. each RUN, as given (an unknown one is an error: "no saved run N");
//   2. for each --id label, as given, its newest run, or its N newest (oldest first) with
//      --last N (a label no run has is an error);
//   3. --last N without --id: the N newest runs, oldest first;
//   4. none of these: the newest run.
// No saved runs at all is an error. `saved` is oldest first (HistoryStore::list()).
Result<std::vector<int64_t>> select_runs(const std::vector<history::RunSummary>& saved,
                                         const RunSelection& selection);

// Row labels for the chosen runs: each run's ID, or "ID#run" for IDs that appear more than once,
// so that every row of the side-by-side tables can be told apart.
std::vector<std::string> row_labels(const std::vector<history::SavedRun>& runs);

}  // namespace diskcond::rawio::report
