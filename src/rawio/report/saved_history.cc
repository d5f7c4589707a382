#include "rawio/report/saved_history.h"

#include "rawio/command_line.h"

namespace diskcond::rawio::report {

Result<SavedHistory> open_saved_history(const std::string& db_path, int* exit_code) {
  const std::string path = db_path.empty() ? history::default_database_path() : db_path;
  *exit_code = kExitUsage;
  if (path.empty()) return make_error("neither XDG_DATA_HOME nor HOME is set; use --db PATH");
  *exit_code = kExitIoError;
  auto store = history::HistoryStore::open(path, history::Database::Mode::kReadOnly);
  if (!store) return make_error(store.error());
  auto runs = store->list();
  if (!runs) return make_error(runs.error());
  *exit_code = kExitOk;
  return SavedHistory{std::move(*store), std::move(*runs)};
}

}  // namespace diskcond::rawio::report
