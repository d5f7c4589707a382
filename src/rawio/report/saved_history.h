// What `rawio report` and `rawio compare` read first: the history database, opened read-only,
// and the list of the runs saved in it.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "rawio/history/history_store.h"

namespace diskcond::rawio::report {

struct SavedHistory {
  history::HistoryStore store;
  std::vector<history::RunSummary> runs;  // as HistoryStore::list() gives them
};

// Opens `db_path` (empty: history::default_database_path()) read-only and lists its runs. On
// failure, one line, and `*exit_code` says why: kExitUsage when there is no path to open
// (neither XDG_DATA_HOME nor HOME is set), kExitIoError when the database cannot be read.
Result<SavedHistory> open_saved_history(const std::string& db_path, int* exit_code);

}  // namespace diskcond::rawio::report
