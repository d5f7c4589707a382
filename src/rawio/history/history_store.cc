#include "rawio/history/history_store.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "rawio/history/histogram_text.h"

namespace diskcond::rawio::history {
namespace {

// Version 1, which kMigrations then brings up to kSchemaVersion (a new database takes the same
// steps as an old one). Unsigned 64-bit values are stored as their int64 bit pattern.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  when_utc     TEXT NOT NULL,      -- ISO 8601, UTC
  host         TEXT NOT NULL,
  kernel       TEXT NOT NULL,
  target       TEXT NOT NULL,      -- as given
  io_path      TEXT NOT NULL,      -- what was opened
  label        TEXT NOT NULL,      -- the row ID (-i)
  kind         TEXT NOT NULL,      -- block_device | file | directory
  engine       TEXT NOT NULL,
  area_bytes   INTEGER NOT NULL,
  sector_bytes INTEGER NOT NULL,
  options_json TEXT NOT NULL       -- the JSON options echo
);
CREATE TABLE IF NOT EXISTS tests (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,       -- run order within the run
  test TEXT NOT NULL,              -- RR | SR | RW | SW
  engine TEXT NOT NULL, direct_io INTEGER NOT NULL, transfer_bytes INTEGER NOT NULL,
  workers INTEGER NOT NULL, iodepth INTEGER NOT NULL, submit_batch INTEGER NOT NULL,
  area_bytes INTEGER NOT NULL, transfer_count_limit INTEGER NOT NULL,
  time_limit_ns INTEGER NOT NULL, seed INTEGER NOT NULL, stopped_by TEXT NOT NULL,
  transfers INTEGER NOT NULL, bytes INTEGER NOT NULL, elapsed_ns INTEGER NOT NULL,
  kib_per_sec REAL NOT NULL, transfers_per_sec REAL NOT NULL,   -- derived, for SQL users
  cpu_user_ns INTEGER NOT NULL, cpu_sys_ns INTEGER NOT NULL,
  lat_sum_ns INTEGER NOT NULL, lat_min_ns INTEGER NOT NULL, lat_max_ns INTEGER NOT NULL,
  lat_mean_ns REAL NOT NULL, lat_p50_ns INTEGER NOT NULL, lat_p90_ns INTEGER NOT NULL,
  lat_p99_ns INTEGER NOT NULL, lat_p99_9_ns INTEGER NOT NULL,   -- derived, for SQL users
  lat_buckets TEXT NOT NULL,       -- non-empty buckets, "index:samples ..."
  PRIMARY KEY (run_id, position)
);
CREATE TABLE IF NOT EXISTS intervals (
  run_id INTEGER NOT NULL, position INTEGER NOT NULL,
  second INTEGER NOT NULL, bytes INTEGER NOT NULL, transfers INTEGER NOT NULL,
  PRIMARY KEY (run_id, position, second),
  FOREIGN KEY (run_id, position) REFERENCES tests(run_id, position) ON DELETE CASCADE
);
)sql";

// kMigrations[v - 1] takes a database from version v to v + 1. Columns are only ever added at
// the end of a table, so a migrated database and a new one have the same columns in one order.
constexpr const char* kMigrations[] = {
    // 2: open loop (--rate). NULL in closed-loop tests and in tests stored by version 1.
    R"sql(
ALTER TABLE tests ADD COLUMN rate_per_sec REAL;         -- requested, transfers per second
ALTER TABLE tests ADD COLUMN arrival TEXT;              -- fixed | poisson
ALTER TABLE tests ADD COLUMN behind_at_end_ns INTEGER;
ALTER TABLE tests ADD COLUMN lag_sum_ns INTEGER;        -- issue lag after the intended time
ALTER TABLE tests ADD COLUMN lag_min_ns INTEGER;
ALTER TABLE tests ADD COLUMN lag_max_ns INTEGER;
ALTER TABLE tests ADD COLUMN lag_p99_ns INTEGER;        -- derived, for SQL users
ALTER TABLE tests ADD COLUMN lag_buckets TEXT;
ALTER TABLE tests ADD COLUMN service_sum_ns INTEGER;    -- submission to completion
ALTER TABLE tests ADD COLUMN service_min_ns INTEGER;
ALTER TABLE tests ADD COLUMN service_max_ns INTEGER;
ALTER TABLE tests ADD COLUMN service_buckets TEXT;
)sql",
    // 3: histograms of LatencyHistogram::kSubBucketBits (NULL bucket_bits: the 6-bit layout of
    // versions 1 and 2), and each second's latency histogram (NULL in seconds stored before).
    R"sql(
ALTER TABLE tests ADD COLUMN bucket_bits INTEGER;       -- layout of every *_buckets of the test
ALTER TABLE tests ADD COLUMN steady_state TEXT;         -- --steady-state: JSON, else NULL
ALTER TABLE runs ADD COLUMN cautions TEXT;              -- JSON [{"key", "text"}], or NULL
ALTER TABLE intervals ADD COLUMN lat_sum_ns INTEGER;
ALTER TABLE intervals ADD COLUMN lat_min_ns INTEGER;
ALTER TABLE intervals ADD COLUMN lat_max_ns INTEGER;
ALTER TABLE intervals ADD COLUMN lat_buckets TEXT;      -- "index:samples ..."
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion - 1);

constexpr const char* kInsertTest =
    "INSERT INTO tests VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,"
    "?19,?20,?21,?22,?23,?24,?25,?26,?27,?28,?29,?30,?31,?32,?33,?34,?35,?36,?37,?38,?39,?40,"
    "?41,?42,?43,?44)";
constexpr const char* kSelectTests =
    "SELECT test, engine, direct_io, transfer_bytes, workers, iodepth, submit_batch, area_bytes,"
    " transfer_count_limit, time_limit_ns, seed, stopped_by, transfers, bytes, elapsed_ns,"
    " cpu_user_ns, cpu_sys_ns, lat_sum_ns, lat_min_ns, lat_max_ns, lat_buckets, position";
// Version 2's columns, selected after kSelectTests's from a version 2 database; then kFromTests.
constexpr const char* kSelectOpenLoop =
    ", rate_per_sec, arrival, behind_at_end_ns, lag_sum_ns, lag_min_ns, lag_max_ns, lag_buckets,"
    " service_sum_ns, service_min_ns, service_max_ns, service_buckets";
// Version 3's, after version 2's.
constexpr const char* kSelectLayout = ", bucket_bits, steady_state";
constexpr const char* kFromTests = " FROM tests WHERE run_id = ?1 ORDER BY position";

std::optional<TestKind> kind_from_code(const std::string& code) {
  for (TestKind kind : kAllTests) {
    if (test_code(kind) == code) return kind;
  }
  return std::nullopt;
}

StopReason stop_reason_from_key(const std::string& key) {
  for (StopReason r : {StopReason::kCount, StopReason::kTimeLimit, StopReason::kCancelled,
                       StopReason::kSteadyState, StopReason::kMaxRounds}) {
    if (stop_reason_key(r) == key) return r;
  }
  return StopReason::kCount;
}

// The stored version; an error for none, or for one newer than this rawio knows.
Result<int> read_version(Database& db) {
  auto q = db.prepare("SELECT version FROM schema_version");
  if (!q) return make_error(q.error() + " (not a rawio history database?)");
  auto row = q->step();
  if (!row) return make_error(row.error());
  if (!*row) return make_error(db.error("history database has no schema version"));
  int version = static_cast<int>(q->int64(0));
  if (version < 1 || version > kSchemaVersion) {
    return make_error(
        db.error(fmt::format("history database has schema version {}, this rawio "
                             "reads versions 1 to {}",
                             version, kSchemaVersion)));
  }
  return version;
}

// In one transaction: makes version 1 in a new (empty) database, then migrates to kSchemaVersion.
Status create_or_migrate(Database& db) {
  auto fail = [&](const std::string& message) {
    (void)db.exec("ROLLBACK");
    return make_error(message);
  };
  if (Status s = db.exec(std::string("BEGIN IMMEDIATE;") + kSchema +
                         "INSERT INTO schema_version SELECT 1 WHERE NOT EXISTS "
                         "(SELECT 1 FROM schema_version);");
      !s) {
    return fail(s.error());
  }
  auto version = read_version(db);
  if (!version) return fail(version.error());
  for (int v = *version; v < kSchemaVersion; ++v) {
    if (Status s = db.exec(std::string(kMigrations[v - 1]) +
                           fmt::format("UPDATE schema_version SET version = {};", v + 1));
        !s) {
      return fail(fmt::format("cannot bring the history database from version {} to {}: {}", v,
                              v + 1, s.error()));
    }
  }
  if (Status s = db.exec("COMMIT"); !s) return fail(s.error());
  return ok_status();
}

// Reads the version, creating or migrating the schema first when writing.
Result<int> settle_schema(Database& db, Database::Mode mode) {
  if (mode == Database::Mode::kCreate) {
    if (Status s = create_or_migrate(db); !s) return make_error(s.error());
  }
  return read_version(db);
}

// Binds an open-loop test's version 2 columns from `first` on, or NULLs for a closed-loop one.
void bind_open_loop(Statement& q, int first, const RunResult& t) {
  if (!t.spec.open_loop()) {
    for (int i = 0; i < 12; ++i) q.bind_null(first + i);
    return;
  }
  const LatencyHistogram& lag = t.schedule_lag;
  const LatencyHistogram& service = t.service_latency;
  q.bind(first, t.spec.rate_per_sec)
      .bind(first + 1, arrival_key(t.spec.arrival))
      .bind(first + 2, t.behind_at_end_ns);
  q.bind_u64(first + 3, lag.sum_ns())
      .bind_u64(first + 4, lag.min_ns())
      .bind_u64(first + 5, lag.max_ns())
      .bind_u64(first + 6, lag.percentile_ns(99))
      .bind(first + 7, buckets_to_text(lag.non_empty_buckets()));
  q.bind_u64(first + 8, service.sum_ns())
      .bind_u64(first + 9, service.min_ns())
      .bind_u64(first + 10, service.max_ns())
      .bind(first + 11, buckets_to_text(service.non_empty_buckets()));
}

// Stored buckets in the current layout: as they are, or converted from the legacy one.
Result<BucketList> read_buckets(const std::string& text, bool legacy) {
  if (!legacy) return buckets_from_text(text);
  auto old = buckets_from_text(text, LatencyHistogram::kLegacyBucketCount);
  if (!old) return old;
  return LatencyHistogram::from_legacy_buckets(*old);
}

// Reads what bind_open_loop() stored, from column `first` on; nothing for NULLs (closed loop).
Status read_open_loop(const Statement& q, int first, bool legacy, RunResult& t) {
  if (q.is_null(first)) return ok_status();
  auto arrival = parse_arrival(q.text(first + 1));
  auto lag = read_buckets(q.text(first + 6), legacy);
  auto service = read_buckets(q.text(first + 10), legacy);
  if (!arrival)
    return make_error(fmt::format("history database: unknown arrival '{}'", q.text(first + 1)));
  if (!lag) return make_error(lag.error());
  if (!service) return make_error(service.error());
  t.spec.rate_per_sec = q.real(first);
  t.spec.arrival = *arrival;
  t.behind_at_end_ns = q.int64(first + 2);
  t.schedule_lag =
      LatencyHistogram::restore(*lag, q.u64(first + 3), q.u64(first + 4), q.u64(first + 5));
  t.service_latency =
      LatencyHistogram::restore(*service, q.u64(first + 7), q.u64(first + 8), q.u64(first + 9));
  return ok_status();
}

// A SteadyState as stored (its rounds and verdict; the rule is the fixed one) and back.
nlohmann::json steady_state_to_json(const SteadyState& s) {
  return {
      {"window_ns", s.window_ns},       {"max_rounds", s.max_rounds},       {"rounds", s.rounds},
      {"reached", s.reached},           {"reached_round", s.reached_round}, {"mean", s.last.mean},
      {"range", s.last.range_fraction}, {"slope", s.last.slope_fraction}};
}

Result<SteadyState> steady_state_from_json(const std::string& text) {
  auto doc = nlohmann::json::parse(text, nullptr, false);
  SteadyState s;
  try {
    s.window_ns = doc.at("window_ns").get<int64_t>();
    s.max_rounds = doc.at("max_rounds").get<size_t>();
    s.rounds = doc.at("rounds").get<std::vector<double>>();
    s.reached = doc.at("reached").get<bool>();
    s.reached_round = doc.at("reached_round").get<size_t>();
    s.last.mean = doc.at("mean").get<double>();
    // JSON has no infinity: a range or slope stored as null was infinite (a mean of 0).
    auto fraction = [&](const char* key) {
      return doc.at(key).is_null() ? std::numeric_limits<double>::infinity()
                                   : doc.at(key).get<double>();
    };
    s.last.range_fraction = fraction("range");
    s.last.slope_fraction = fraction("slope");
    s.last.steady = s.reached;
  } catch (const nlohmann::json::exception&) {
    return make_error(fmt::format("history database: bad steady state '{}'", text.substr(0, 40)));
  }
  return s;
}

}  // namespace

std::string default_database_path() {
  std::string base;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    base = std::string(home) + "/.local/share";
  } else {
    return "";
  }
  return base + "/diskcond/rawio.db";
}

Result<HistoryStore> HistoryStore::open(const std::string& path, Database::Mode mode) {
  if (mode == Database::Mode::kCreate) {
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec)
      return make_error(fmt::format("cannot create {} for the history database: {}",
                                    parent.string(), ec.message()));
  }
  auto db = Database::open(path, mode);
  if (!db) return make_error(db.error());
  auto version = settle_schema(*db, mode);
  if (!version) return make_error(version.error());
  return HistoryStore(std::move(*db), *version);
}

Result<std::vector<int64_t>> HistoryStore::save(const RunContext& c,
                                                const std::vector<TargetReport>& reports) {
  if (Status s = db_.exec("BEGIN IMMEDIATE"); !s) return make_error(s.error());
  std::vector<int64_t> ids;
  auto fail = [&](const std::string& message) {
    (void)db_.exec("ROLLBACK");
    return make_error(message);
  };
  auto insert = db_.prepare(
      "INSERT INTO runs (when_utc, host, kernel, target, io_path, label, kind, engine, area_bytes,"
      " sector_bytes, options_json, cautions) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)");
  if (!insert) return fail(insert.error());
  for (const TargetReport& r : reports) {
    insert->bind(1, c.when_utc)
        .bind(2, c.host)
        .bind(3, c.kernel)
        .bind(4, r.target)
        .bind(5, r.io_path);
    insert->bind(6, r.id).bind(7, r.kind).bind(8, c.engine).bind_u64(9, r.area_bytes);
    insert->bind(10, static_cast<int64_t>(r.sector_bytes)).bind(11, c.options_json);
    nlohmann::json cautions = nlohmann::json::array();
    for (const Caution& caution : r.cautions)
      cautions.push_back({{"key", caution.key}, {"text", caution.text}});
    insert->bind(12, cautions.dump());
    if (Status s = insert->run(); !s) return fail(s.error());
    ids.push_back(db_.last_insert_rowid());
    if (Status s = save_report(ids.back(), r); !s) return fail(s.error());
  }
  if (Status s = db_.exec("COMMIT"); !s) return fail(s.error());
  return ids;
}

Status HistoryStore::save_report(int64_t run_id, const TargetReport& report) {
  auto test = db_.prepare(kInsertTest);
  if (!test) return make_error(test.error());
  auto interval = db_.prepare("INSERT INTO intervals VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)");
  if (!interval) return make_error(interval.error());
  for (size_t i = 0; i < report.tests.size(); ++i) {
    const RunResult& t = report.tests[i];
    const LatencyHistogram& h = t.latency;
    const auto position = static_cast<int64_t>(i);
    test->bind(1, run_id).bind(2, position).bind(3, test_code(t.spec.kind)).bind(4, t.engine);
    test->bind(5, int64_t{t.direct})
        .bind(6, int64_t{t.spec.transfer_bytes})
        .bind(7, int64_t{t.spec.workers});
    test->bind(8, int64_t{t.iodepth})
        .bind(9, int64_t{t.spec.submit_batch})
        .bind_u64(10, t.spec.area_bytes);
    test->bind_u64(11, t.spec.transfer_count)
        .bind(12, t.spec.time_limit_ns)
        .bind_u64(13, t.spec.seed);
    test->bind(14, stop_reason_key(t.stopped_by)).bind_u64(15, t.transfers).bind_u64(16, t.bytes);
    test->bind(17, t.elapsed_ns).bind(18, t.kib_per_sec()).bind(19, t.transfers_per_sec());
    test->bind(20, t.cpu.user_ns)
        .bind(21, t.cpu.sys_ns)
        .bind_u64(22, h.sum_ns())
        .bind_u64(23, h.min_ns());
    test->bind_u64(24, h.max_ns()).bind(25, h.mean_ns()).bind_u64(26, h.percentile_ns(50));
    test->bind_u64(27, h.percentile_ns(90)).bind_u64(28, h.percentile_ns(99));
    test->bind_u64(29, h.percentile_ns(99.9)).bind(30, buckets_to_text(h.non_empty_buckets()));
    bind_open_loop(*test, 31, t);
    test->bind(43, int64_t{LatencyHistogram::kSubBucketBits});
    if (t.steady_state) {
      test->bind(44, steady_state_to_json(*t.steady_state).dump());
    } else {
      test->bind_null(44);
    }
    if (Status s = test->run(); !s) return s;
    for (size_t second = 0; second < t.intervals.size(); ++second) {
      interval->bind(1, run_id).bind(2, position).bind(3, static_cast<int64_t>(second));
      interval->bind_u64(4, t.intervals[second].bytes).bind_u64(5, t.intervals[second].transfers);
      if (second < t.interval_latency.size()) {
        const SparseHistogram& h = t.interval_latency[second];
        interval->bind_u64(6, h.sum_ns).bind_u64(7, h.min_ns).bind_u64(8, h.max_ns);
        interval->bind(9, buckets_to_text(h.buckets));
      } else {
        for (int i = 6; i <= 9; ++i) interval->bind_null(i);
      }
      if (Status s = interval->run(); !s) return s;
    }
  }
  return ok_status();
}

Result<std::vector<RunSummary>> HistoryStore::list() {
  auto q = db_.prepare("SELECT id, when_utc, host, target, label FROM runs ORDER BY id");
  if (!q) return make_error(q.error());
  std::vector<RunSummary> runs;
  std::map<int64_t, size_t> index;
  for (;;) {
    auto row = q->step();
    if (!row) return make_error(row.error());
    if (!*row) break;
    index[q->int64(0)] = runs.size();
    runs.push_back({q->int64(0), q->text(1), q->text(2), q->text(3), q->text(4), {}});
  }
  auto t = db_.prepare("SELECT run_id, test FROM tests ORDER BY run_id, position");
  if (!t) return make_error(t.error());
  for (;;) {
    auto row = t->step();
    if (!row) return make_error(row.error());
    if (!*row) break;
    if (auto it = index.find(t->int64(0)); it != index.end())
      runs[it->second].tests.push_back(t->text(1));
  }
  return runs;
}

Result<SavedRun> HistoryStore::load(int64_t run_id) {
  auto q = db_.prepare(
      fmt::format("SELECT when_utc, host, kernel, target, io_path, label, kind, engine, area_bytes,"
                  " sector_bytes, options_json{} FROM runs WHERE id = ?1",
                  version_ >= 3 ? ", cautions" : ""));
  if (!q) return make_error(q.error());
  q->bind(1, run_id);
  auto row = q->step();
  if (!row) return make_error(row.error());
  if (!*row) return make_error(fmt::format("no saved run {}", run_id));
  SavedRun run;
  run.run_id = run_id;
  run.context = {q->text(0), q->text(1), q->text(2), q->text(7), q->text(10)};
  run.report = {q->text(5), q->text(3), q->text(6),
                q->text(4), q->u64(8),  static_cast<uint32_t>(q->int64(9)),
                {}};
  if (version_ >= 3 && !q->is_null(11)) {
    auto cautions = nlohmann::json::parse(q->text(11), nullptr, false);
    if (cautions.is_array()) {
      for (const auto& c : cautions) {
        if (c.contains("key") && c.contains("text") && c["key"].is_string() &&
            c["text"].is_string())
          run.report.cautions.push_back(
              {c["key"].get<std::string>(), c["text"].get<std::string>()});
      }
    }
  }
  if (Status s = load_tests(run); !s) return make_error(s.error());
  return run;
}

Status HistoryStore::load_tests(SavedRun& run) {
  // A version 1 database (opened read-only, so not migrated) has no open-loop columns, a version 2
  // one no layout column.
  auto q = db_.prepare(std::string(kSelectTests) + (version_ >= 2 ? kSelectOpenLoop : "") +
                       (version_ >= 3 ? kSelectLayout : "") + kFromTests);
  if (!q) return make_error(q.error());
  q->bind(1, run.run_id);
  for (;;) {
    auto row = q->step();
    if (!row) return make_error(row.error());
    if (!*row) return ok_status();
    auto kind = kind_from_code(q->text(0));
    if (!kind)
      return make_error(
          fmt::format("history database: unknown test '{}' in run {}", q->text(0), run.run_id));
    // NULL (stored by version 1 or 2, or migrated from them): the legacy layout.
    const int64_t bits = version_ >= 3 && !q->is_null(33) ? q->int64(33) : 6;
    if (bits != LatencyHistogram::kSubBucketBits && bits != LatencyHistogram::kLegacySubBucketBits)
      return make_error(
          fmt::format("history database: run {} has histograms of {} sub-bucket bits, this rawio "
                      "reads 6 and {}",
                      run.run_id, bits, LatencyHistogram::kSubBucketBits));
    const bool legacy = bits == LatencyHistogram::kLegacySubBucketBits;
    auto buckets = read_buckets(q->text(20), legacy);
    if (!buckets) return make_error(buckets.error());
    RunResult t;
    t.spec.kind = *kind;
    t.engine = q->text(1);
    t.direct = q->int64(2) != 0;
    t.spec.transfer_bytes = static_cast<uint32_t>(q->int64(3));
    t.spec.workers = static_cast<unsigned>(q->int64(4));
    t.iodepth = static_cast<unsigned>(q->int64(5));
    t.spec.iodepth = t.iodepth;
    t.spec.submit_batch = static_cast<unsigned>(q->int64(6));
    t.spec.area_bytes = q->u64(7);
    t.spec.transfer_count = q->u64(8);
    t.spec.time_limit_ns = q->int64(9);
    t.spec.seed = q->u64(10);
    t.stopped_by = stop_reason_from_key(q->text(11));
    t.transfers = q->u64(12);
    t.bytes = q->u64(13);
    t.elapsed_ns = q->int64(14);
    t.cpu = {q->int64(15), q->int64(16)};
    t.latency = LatencyHistogram::restore(*buckets, q->u64(17), q->u64(18), q->u64(19));
    if (version_ >= 2) {
      if (Status s = read_open_loop(*q, 22, legacy, t); !s) return s;
    }
    if (version_ >= 3 && !q->is_null(34)) {
      auto steady = steady_state_from_json(q->text(34));
      if (!steady) return make_error(steady.error());
      t.steady_state = std::move(*steady);
    }
    if (Status s = load_intervals(run.run_id, static_cast<int>(q->int64(21)), t); !s) return s;
    run.report.tests.push_back(std::move(t));
  }
}

Status HistoryStore::load_intervals(int64_t run_id, int position, RunResult& test) {
  // Version 3 added each second's histogram; seconds stored before have none (NULL).
  auto q = db_.prepare(fmt::format(
      "SELECT second, bytes, transfers{} FROM intervals WHERE run_id = ?1 AND position = ?2 ORDER "
      "BY second",
      version_ >= 3 ? ", lat_sum_ns, lat_min_ns, lat_max_ns, lat_buckets" : ""));
  if (!q) return make_error(q.error());
  q->bind(1, run_id).bind(2, int64_t{position});
  for (;;) {
    auto row = q->step();
    if (!row) return make_error(row.error());
    if (!*row) return ok_status();
    auto second = static_cast<size_t>(q->int64(0));
    if (test.intervals.size() <= second) test.intervals.resize(second + 1);
    test.intervals[second] = {q->u64(1), q->u64(2)};
    if (version_ < 3 || q->is_null(6)) continue;
    auto buckets = buckets_from_text(q->text(6));
    if (!buckets) return make_error(buckets.error());
    if (test.interval_latency.size() <= second) test.interval_latency.resize(second + 1);
    test.interval_latency[second] =
        LatencyHistogram::restore(*buckets, q->u64(3), q->u64(4), q->u64(5)).sparse();
  }
}

}  // namespace diskcond::rawio::history
