// HistoryStore: rawio's saved runs in an SQLite database (schema in docs/rawio.md).
//
// One row in `runs` per target of an invocation, its tests in `tests` (figures, CPU, the latency
// histogram's non-empty buckets and percentiles) and their per-second samples in `intervals`.
// A `schema_version` table holds the version. Opening for writing (kCreate) brings an older
// database up to kSchemaVersion in place (version 2 added the open-loop columns, NULL in the runs
// stored before; version 3 the histograms' layout, finer since, and per-second histograms);
// opening read-only reads it as it is. A newer database is refused. Histograms stored in the old
// layout (6 sub-bucket bits) are read into the new one at their old resolution.
// Writes happen in one transaction per save(); a busy timeout lets concurrent rawio processes
// share one file. Nothing prints; every error is one line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "rawio/history/saved_run.h"
#include "rawio/history/sqlite_db.h"

namespace diskcond::rawio::history {

inline constexpr int kSchemaVersion = 3;

// ${XDG_DATA_HOME:-$HOME/.local/share}/diskcond/rawio.db ("" if neither variable is set).
std::string default_database_path();

class HistoryStore {
 public:
  // kCreate makes the file, its missing parent directories and the schema; kReadOnly fails with
  // one line if the file is not there, and save() on it fails (for `rawio report`).
  static Result<HistoryStore> open(const std::string& path, Database::Mode mode);

  int schema_version() const { return version_; }

  // Stores every report with the same context in one transaction. Returns the new run ids, in
  // the order of `reports`.
  Result<std::vector<int64_t>> save(const RunContext& context,
                                    const std::vector<TargetReport>& reports);

  // All runs, oldest first.
  Result<std::vector<RunSummary>> list();
  // REQUIRES nothing: an unknown id gives the error "no saved run N".
  Result<SavedRun> load(int64_t run_id);

 private:
  explicit HistoryStore(Database db, int version) : db_(std::move(db)), version_(version) {}
  Status save_report(int64_t run_id, const TargetReport& report);
  Status load_tests(SavedRun& run);
  Status load_intervals(int64_t run_id, int position, RunResult& test);

  Database db_;
  int version_;
};

}  // namespace diskcond::rawio::history
