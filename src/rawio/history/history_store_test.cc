#include "rawio/history/history_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>

#include "rawio/history/histogram_text.h"
#include "rawio/test_util.h"

namespace diskcond::rawio::history {
namespace {

// A run with every field set to a distinct, known value.
TargetReport known_report(const std::string& id) {
  TargetReport report{id, "/dev/vinum/test", "block_device", "/dev/vinum/test", 1 << 30, 512, {}};
  for (TestKind kind : {TestKind::kRandomRead, TestKind::kSequentialWrite}) {
    RunResult t;
    t.spec.kind = kind;
    t.spec.transfer_bytes = 16384;
    t.spec.workers = 8;
    t.spec.iodepth = 4;
    t.spec.submit_batch = 2;
    t.spec.area_bytes = 1 << 30;
    t.spec.transfer_count = 65536;
    t.spec.time_limit_ns = 10'000'000'000;
    t.spec.seed = UINT64_MAX - 3;  // above INT64_MAX: stored as its bit pattern
    t.engine = "io_uring";
    t.iodepth = 4;
    t.direct = true;
    t.transfers = 4808 + static_cast<uint64_t>(kind);
    t.bytes = t.transfers * 16384;
    t.elapsed_ns = 10'000'412'345;
    t.cpu = {12'000'000, 1'860'000'000};
    for (uint64_t v : {51'200u, 900'000u, 2'000'000u, 2'000'100u, 23'456'789u}) t.latency.record(v);
    t.intervals = {{4'915'200, 300}, {0, 0}, {5'000'000, 305}};
    t.interval_latency.resize(3);
    LatencyHistogram first, last;
    for (uint64_t v : {51'200u, 900'000u}) first.record(v);
    for (uint64_t v : {2'000'000u, 2'000'100u, 23'456'789u}) last.record(v);
    t.interval_latency[0] = first.sparse();
    t.interval_latency[2] = last.sparse();
    t.stopped_by = StopReason::kTimeLimit;
    if (kind == TestKind::kRandomRead) {
      std::vector<double> rounds = {50, 80, 100, 110, 95, 105, 100};
      t.steady_state = detect_steady_state(rounds, {});
      t.steady_state->window_ns = 2'000'000'000;
      t.steady_state->max_rounds = 25;
      t.stopped_by = StopReason::kSteadyState;
    }
    report.tests.push_back(t);
  }
  return report;
}

RunContext known_context() {
  return {"2026-11-30T06:42:21Z", "bsdbox", "Linux 6.1.0", "io_uring", R"({"seed":1})"};
}

TEST(HistoryStore, RoundTripKeepsEveryField) {
  testing::ScratchDir dir;
  auto store = HistoryStore::open(dir.file("rawio.db"), Database::Mode::kCreate);
  ASSERT_TRUE(store) << store.error();
  TargetReport saved = known_report("vinum");
  auto ids = store->save(known_context(), {saved});
  ASSERT_TRUE(ids) << ids.error();
  ASSERT_EQ(ids->size(), 1u);

  auto reopened = HistoryStore::open(dir.file("rawio.db"), Database::Mode::kReadOnly);
  ASSERT_TRUE(reopened) << reopened.error();
  auto run = reopened->load(ids->at(0));
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->run_id, ids->at(0));
  EXPECT_EQ(run->context.when_utc, "2026-11-30T06:42:21Z");
  EXPECT_EQ(run->context.host, "bsdbox");
  EXPECT_EQ(run->context.kernel, "Linux 6.1.0");
  EXPECT_EQ(run->context.engine, "io_uring");
  EXPECT_EQ(run->context.options_json, R"({"seed":1})");
  const TargetReport& r = run->report;
  EXPECT_EQ(r.id, "vinum");
  EXPECT_EQ(r.target, saved.target);
  EXPECT_EQ(r.kind, saved.kind);
  EXPECT_EQ(r.io_path, saved.io_path);
  EXPECT_EQ(r.area_bytes, saved.area_bytes);
  EXPECT_EQ(r.sector_bytes, 512u);
  ASSERT_EQ(r.tests.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const RunResult& a = saved.tests[i];
    const RunResult& b = r.tests[i];
    EXPECT_EQ(b.spec.kind, a.spec.kind);
    EXPECT_EQ(b.spec.transfer_bytes, a.spec.transfer_bytes);
    EXPECT_EQ(b.spec.workers, a.spec.workers);
    EXPECT_EQ(b.spec.submit_batch, a.spec.submit_batch);
    EXPECT_EQ(b.spec.area_bytes, a.spec.area_bytes);
    EXPECT_EQ(b.spec.transfer_count, a.spec.transfer_count);
    EXPECT_EQ(b.spec.time_limit_ns, a.spec.time_limit_ns);
    EXPECT_EQ(b.spec.seed, a.spec.seed);
    EXPECT_EQ(b.engine, a.engine);
    EXPECT_EQ(b.iodepth, a.iodepth);
    EXPECT_EQ(b.direct, a.direct);
    EXPECT_EQ(b.transfers, a.transfers);
    EXPECT_EQ(b.bytes, a.bytes);
    EXPECT_EQ(b.elapsed_ns, a.elapsed_ns);
    EXPECT_DOUBLE_EQ(b.kib_per_sec(), a.kib_per_sec());
    EXPECT_EQ(b.cpu.user_ns, a.cpu.user_ns);
    EXPECT_EQ(b.cpu.sys_ns, a.cpu.sys_ns);
    EXPECT_EQ(b.stopped_by, a.stopped_by);
    ASSERT_EQ(b.steady_state.has_value(), a.steady_state.has_value());
    if (a.steady_state) {
      EXPECT_EQ(b.steady_state->rounds, a.steady_state->rounds);
      EXPECT_EQ(b.steady_state->reached_round, 7u);
      EXPECT_EQ(b.steady_state->window_ns, 2'000'000'000);
      EXPECT_EQ(b.steady_state->max_rounds, 25u);
      EXPECT_DOUBLE_EQ(b.steady_state->last.range_fraction, a.steady_state->last.range_fraction);
    }
    EXPECT_EQ(b.latency.count(), 5u);
    EXPECT_EQ(b.latency.min_ns(), 51'200u);
    EXPECT_EQ(b.latency.max_ns(), 23'456'789u);
    EXPECT_DOUBLE_EQ(b.latency.mean_ns(), a.latency.mean_ns());
    EXPECT_EQ(b.latency.non_empty_buckets(), a.latency.non_empty_buckets());
    for (double p : {50.0, 90.0, 99.0, 99.9})
      EXPECT_EQ(b.latency.percentile_ns(p), a.latency.percentile_ns(p));
    ASSERT_EQ(b.intervals.size(), 3u);
    for (size_t s = 0; s < 3; ++s) {
      EXPECT_EQ(b.intervals[s].bytes, a.intervals[s].bytes);
      EXPECT_EQ(b.intervals[s].transfers, a.intervals[s].transfers);
      EXPECT_EQ(b.interval_latency[s], a.interval_latency[s]) << s;
    }
  }
}

TEST(HistoryStore, SchemaVersionIsRecordedAndOthersRefused) {
  testing::ScratchDir dir;
  const std::string path = dir.file("rawio.db");
  {
    auto store = HistoryStore::open(path, Database::Mode::kCreate);
    ASSERT_TRUE(store) << store.error();
    EXPECT_EQ(store->schema_version(), kSchemaVersion);
  }
  {  // opening again does not add a second version row or fail
    auto again = HistoryStore::open(path, Database::Mode::kCreate);
    ASSERT_TRUE(again) << again.error();
    auto db = Database::open(path, Database::Mode::kCreate);
    auto q = db->prepare("SELECT count(*), max(version) FROM schema_version");
    ASSERT_TRUE(q->step().value());
    EXPECT_EQ(q->int64(0), 1);
    EXPECT_EQ(q->int64(1), kSchemaVersion);
    ASSERT_TRUE(db->exec("UPDATE schema_version SET version = 99"));
  }
  auto future = HistoryStore::open(path, Database::Mode::kReadOnly);
  ASSERT_FALSE(future);
  EXPECT_NE(future.error().find("schema version 99"), std::string::npos) << future.error();
  future = HistoryStore::open(path, Database::Mode::kCreate);  // not overwritten either
  ASSERT_FALSE(future);
  EXPECT_NE(future.error().find("schema version 99"), std::string::npos) << future.error();
}

TEST(HistoryStore, SavesSeveralTargetsInOrderAndListsThem) {
  testing::ScratchDir dir;
  auto store =
      HistoryStore::open(dir.file("sub/dir/rawio.db"), Database::Mode::kCreate);  // makes dirs
  ASSERT_TRUE(store) << store.error();
  auto ids = store->save(known_context(), {known_report("plain"), known_report("vinum")});
  ASSERT_TRUE(ids) << ids.error();
  ASSERT_EQ(ids->size(), 2u);
  EXPECT_EQ(ids->at(1), ids->at(0) + 1);
  auto runs = store->list();
  ASSERT_TRUE(runs) << runs.error();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ(runs->at(0).label, "plain");
  EXPECT_EQ(runs->at(1).label, "vinum");
  EXPECT_EQ(runs->at(1).host, "bsdbox");
  EXPECT_EQ(runs->at(1).tests, (std::vector<std::string>{"RR", "SW"}));
}

TEST(HistoryStore, ErrorsAreOneLine) {
  testing::ScratchDir dir;
  auto missing = HistoryStore::open(dir.file("none.db"), Database::Mode::kReadOnly);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("no history database at"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.db")));

  std::ofstream(dir.file("plain.txt")) << "not a directory";
  auto unwritable = HistoryStore::open(dir.file("plain.txt/rawio.db"), Database::Mode::kCreate);
  ASSERT_FALSE(unwritable);
  EXPECT_EQ(unwritable.error().find('\n'), std::string::npos);

  std::ofstream(dir.file("junk.db")) << "this is not an SQLite file at all, just text...........";
  auto junk = HistoryStore::open(dir.file("junk.db"), Database::Mode::kReadOnly);
  ASSERT_FALSE(junk);
  EXPECT_NE(junk.error().find("junk.db"), std::string::npos) << junk.error();

  auto store = HistoryStore::open(dir.file("rawio.db"), Database::Mode::kCreate);
  auto run = store->load(42);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error(), "no saved run 42");
}

TEST(HistoryStore, ConcurrentSaversWaitForEachOther) {
  // Separate connections, as separate rawio processes would have: the busy timeout makes each
  // save wait for the other's transaction instead of failing with "database is locked".
  testing::ScratchDir dir;
  const std::string path = dir.file("rawio.db");
  ASSERT_TRUE(HistoryStore::open(path, Database::Mode::kCreate));
  constexpr int kSavers = 4, kSaves = 10;
  std::vector<std::string> errors(kSavers);
  std::vector<std::thread> savers;
  for (int i = 0; i < kSavers; ++i) {
    savers.emplace_back([&, i] {
      auto store = HistoryStore::open(path, Database::Mode::kCreate);
      if (!store) return void(errors[i] = store.error());
      for (int n = 0; n < kSaves; ++n) {
        auto ids = store->save(known_context(), {known_report("t" + std::to_string(i))});
        if (!ids) return void(errors[i] = ids.error());
      }
    });
  }
  for (auto& t : savers) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  auto store = HistoryStore::open(path, Database::Mode::kReadOnly);
  auto runs = store->list();
  ASSERT_TRUE(runs) << runs.error();
  EXPECT_EQ(runs->size(), static_cast<size_t>(kSavers * kSaves));
  EXPECT_EQ(store->load(runs->back().run_id).value().report.tests.size(), 2u);
}

TEST(HistoryStore, ReadOnlyOpenCannotWrite) {
  testing::ScratchDir dir;
  ASSERT_TRUE(HistoryStore::open(dir.file("rawio.db"), Database::Mode::kCreate));
  auto store = HistoryStore::open(dir.file("rawio.db"), Database::Mode::kReadOnly);
  ASSERT_TRUE(store) << store.error();
  auto ids = store->save(known_context(), {known_report("x")});
  ASSERT_FALSE(ids);
  EXPECT_NE(ids.error().find("readonly"), std::string::npos) << ids.error();
  EXPECT_TRUE(store->list().value().empty());
}

TEST(HistoryStore, BucketTextRoundTripsAndRejectsJunk) {
  BucketList buckets = {{3, 1}, {700, 12}, {3775, 9}};
  EXPECT_EQ(buckets_to_text(buckets), "3:1 700:12 3775:9");
  EXPECT_EQ(buckets_from_text("3:1 700:12 3775:9").value(), buckets);
  EXPECT_TRUE(buckets_from_text("").value().empty());
  for (const char* bad : {"3", "3:", "3:1 ", "x:1", "3:1,4:2", "33792:1"}) {
    EXPECT_FALSE(buckets_from_text(bad)) << bad;
  }
  // The legacy layout (schema 1 and 2) has 3776 buckets.
  EXPECT_TRUE(buckets_from_text("33791:1"));
  EXPECT_TRUE(buckets_from_text("3775:1", LatencyHistogram::kLegacyBucketCount));
  EXPECT_FALSE(buckets_from_text("3776:1", LatencyHistogram::kLegacyBucketCount));
}

TEST(HistoryStore, DefaultPathFollowsXdg) {
  const char* old_xdg = getenv("XDG_DATA_HOME");
  std::string saved = old_xdg ? old_xdg : "";
  setenv("XDG_DATA_HOME", "/data/x", 1);
  EXPECT_EQ(default_database_path(), "/data/x/diskcond/rawio.db");
  unsetenv("XDG_DATA_HOME");
  EXPECT_EQ(default_database_path(),
            std::string(getenv("HOME")) + "/.local/share/diskcond/rawio.db");
  if (old_xdg) setenv("XDG_DATA_HOME", saved.c_str(), 1);
}

// The schema of rawio 0.1.0's first history (version 1), as it shipped: the fixture an old
// database is made from. Do not change it to follow the current schema.
constexpr const char* kVersion1Schema = R"sql(
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

// A version 1 database holding one closed-loop RR test, as rawio 0.1.0 would have saved it.
void make_version1_database(const std::string& path) {
  auto db = Database::open(path, Database::Mode::kCreate);
  ASSERT_TRUE(db) << db.error();
  ASSERT_TRUE(db->exec(std::string(kVersion1Schema) +
                       "INSERT INTO schema_version VALUES (1);"
                       "INSERT INTO runs VALUES (1, '2026-11-30T06:42:21Z', 'bsdbox', 'Linux 6.1',"
                       " '/dev/sdb', '/dev/sdb', 'plain', 'block_device', 'psync', 1073741824,"
                       " 512, '{\"seed\":1}');"
                       "INSERT INTO tests VALUES (1, 0, 'RR', 'psync', 1, 16384, 8, 1, 1,"
                       " 1073741824, -1, 5000000000, 1, 'time_limit', 2, 32768, 5000000000,"
                       " 6.4, 0.4, 100, 200, 3000, 1000, 2000, 1500.0, 1000, 2000, 2000, 2000,"
                       // 1000 and 2000 ns in the 6-bit layout of the time
                       " '317:1 381:1');"
                       "INSERT INTO intervals VALUES (1, 0, 0, 32768, 2);"));
}

TEST(HistoryStore, AVersion1DatabaseIsReadAsItIsAndMigratedWhenWritten) {
  testing::ScratchDir dir;
  const std::string path = dir.file("old.db");
  make_version1_database(path);
  auto check_old_run = [](HistoryStore& store) {
    auto run = store.load(1);
    ASSERT_TRUE(run) << run.error();
    EXPECT_EQ(run->report.id, "plain");
    ASSERT_EQ(run->report.tests.size(), 1u);
    const RunResult& t = run->report.tests[0];
    EXPECT_EQ(t.transfers, 2u);
    EXPECT_EQ(t.latency.count(), 2u);
    EXPECT_EQ(t.latency.max_ns(), 2000u);
    // Read into today's layout at the old resolution: 1000 ns came from [1000, 1008).
    EXPECT_EQ(t.latency.percentile_ns(50), 1004u);
    EXPECT_EQ(t.latency.percentile_ns(100), 2000u);
    EXPECT_TRUE(t.interval_latency.empty());  // no per-second histograms then
    EXPECT_FALSE(t.spec.open_loop());         // stored before open loop existed: closed loop
    EXPECT_EQ(t.schedule_lag.count(), 0u);
  };
  {  // rawio report opens read-only: the old database is read, not changed
    auto store = HistoryStore::open(path, Database::Mode::kReadOnly);
    ASSERT_TRUE(store) << store.error();
    EXPECT_EQ(store->schema_version(), 1);
    check_old_run(*store);
  }
  {  // rawio --save opens for writing: migrated in place, the old run kept
    auto store = HistoryStore::open(path, Database::Mode::kCreate);
    ASSERT_TRUE(store) << store.error();
    EXPECT_EQ(store->schema_version(), kSchemaVersion);
    check_old_run(*store);
    TargetReport open = known_report("vinum");
    open.tests[0].spec.rate_per_sec = 2000;
    open.tests[0].spec.arrival = Arrival::kPoisson;
    for (uint64_t v : {1'000u, 3'000u, 212'400'000u}) open.tests[0].schedule_lag.record(v);
    open.tests[0].service_latency.record(900'000);
    open.tests[0].behind_at_end_ns = 3'200'000;
    auto ids = store->save(known_context(), {open});
    ASSERT_TRUE(ids) << ids.error();
    EXPECT_EQ(ids->at(0), 2);
  }
  auto store = HistoryStore::open(path, Database::Mode::kReadOnly);
  ASSERT_TRUE(store) << store.error();
  EXPECT_EQ(store->schema_version(), kSchemaVersion);
  check_old_run(*store);
  auto run = store->load(2);
  ASSERT_TRUE(run) << run.error();
  const RunResult& rr = run->report.tests[0];
  EXPECT_EQ(rr.spec.rate_per_sec, 2000);
  EXPECT_EQ(rr.spec.arrival, Arrival::kPoisson);
  EXPECT_EQ(rr.behind_at_end_ns, 3'200'000);
  EXPECT_EQ(rr.schedule_lag.count(), 3u);
  EXPECT_EQ(rr.schedule_lag.min_ns(), 1'000u);
  EXPECT_EQ(rr.schedule_lag.max_ns(), 212'400'000u);
  LatencyHistogram lag;
  for (uint64_t v : {1'000u, 3'000u, 212'400'000u}) lag.record(v);
  EXPECT_EQ(rr.schedule_lag.non_empty_buckets(), lag.non_empty_buckets());
  EXPECT_EQ(rr.service_latency.max_ns(), 900'000u);
  const RunResult& sw = run->report.tests[1];  // closed loop: NULLs, read back as closed loop
  EXPECT_FALSE(sw.spec.open_loop());
  EXPECT_EQ(sw.schedule_lag.count(), 0u);
  // One version row, now the current one; the new columns are there for SQL users.
  auto db = Database::open(path, Database::Mode::kReadOnly);
  auto q = db->prepare("SELECT count(*), max(version) FROM schema_version");
  ASSERT_TRUE(q->step().value());
  EXPECT_EQ(q->int64(0), 1);
  EXPECT_EQ(q->int64(1), kSchemaVersion);
  auto sql = db->prepare("SELECT arrival, lag_p99_ns FROM tests WHERE run_id = 2 AND position = 0");
  ASSERT_TRUE(sql->step().value());
  EXPECT_EQ(sql->text(0), "poisson");
  EXPECT_GT(sql->int64(1), 200'000'000);
}

// Version 2 as it shipped: version 1 plus the open-loop columns, histograms still in the 6-bit
// layout (no bucket_bits column). Do not change it to follow the current schema.
constexpr const char* kVersion2Columns = R"sql(
ALTER TABLE tests ADD COLUMN rate_per_sec REAL;
ALTER TABLE tests ADD COLUMN arrival TEXT;
ALTER TABLE tests ADD COLUMN behind_at_end_ns INTEGER;
ALTER TABLE tests ADD COLUMN lag_sum_ns INTEGER;
ALTER TABLE tests ADD COLUMN lag_min_ns INTEGER;
ALTER TABLE tests ADD COLUMN lag_max_ns INTEGER;
ALTER TABLE tests ADD COLUMN lag_p99_ns INTEGER;
ALTER TABLE tests ADD COLUMN lag_buckets TEXT;
ALTER TABLE tests ADD COLUMN service_sum_ns INTEGER;
ALTER TABLE tests ADD COLUMN service_min_ns INTEGER;
ALTER TABLE tests ADD COLUMN service_max_ns INTEGER;
ALTER TABLE tests ADD COLUMN service_buckets TEXT;
)sql";

// A version 2 database holding one open-loop RR test (2000/s poisson), latency, issue lag and
// service latency each of 1000 and 2000 ns in the 6-bit layout, with two seconds of counts.
void make_version2_database(const std::string& path) {
  auto db = Database::open(path, Database::Mode::kCreate);
  ASSERT_TRUE(db) << db.error();
  ASSERT_TRUE(db->exec(std::string(kVersion1Schema) + kVersion2Columns +
                       "INSERT INTO schema_version VALUES (2);"
                       "INSERT INTO runs VALUES (1, '2026-12-01T08:00:00Z', 'vm', 'Linux 6.18',"
                       " '/dev/sdb', '/dev/sdb', 'open', 'block_device', 'psync', 1073741824,"
                       " 512, '{\"seed\":1}');"
                       "INSERT INTO tests VALUES (1, 0, 'RR', 'psync', 1, 16384, 8, 1, 1,"
                       " 1073741824, -1, 5000000000, 1, 'time_limit', 2, 32768, 5000000000,"
                       " 6.4, 0.4, 100, 200, 3000, 1000, 2000, 1500.0, 1000, 2000, 2000, 2000,"
                       " '317:1 381:1',"
                       " 2000.0, 'poisson', 4000, 3000, 1000, 2000, 2000, '317:1 381:1',"
                       " 3000, 1000, 2000, '317:1 381:1');"
                       "INSERT INTO intervals VALUES (1, 0, 0, 16384, 1);"
                       "INSERT INTO intervals VALUES (1, 0, 1, 16384, 1);"));
}

TEST(HistoryStore, AVersion2DatabaseKeepsItsOpenLoopFiguresReadAndMigrated) {
  testing::ScratchDir dir;
  const std::string path = dir.file("v2.db");
  make_version2_database(path);
  auto check = [](HistoryStore& store) {
    auto run = store.load(1);
    ASSERT_TRUE(run) << run.error();
    ASSERT_EQ(run->report.tests.size(), 1u);
    const RunResult& t = run->report.tests[0];
    EXPECT_EQ(t.spec.rate_per_sec, 2000);
    EXPECT_EQ(t.spec.arrival, Arrival::kPoisson);
    EXPECT_EQ(t.behind_at_end_ns, 4000);
    for (const LatencyHistogram* h : {&t.latency, &t.schedule_lag, &t.service_latency}) {
      EXPECT_EQ(h->count(), 2u);
      EXPECT_EQ(h->min_ns(), 1000u);
      EXPECT_EQ(h->max_ns(), 2000u);
      EXPECT_EQ(h->percentile_ns(50), 1004u);  // the old bucket [1000, 1008), its midpoint
    }
    EXPECT_EQ(t.intervals.size(), 2u);
    EXPECT_TRUE(t.interval_latency.empty());  // no per-second histograms in version 2
  };
  {
    auto store = HistoryStore::open(path, Database::Mode::kReadOnly);
    ASSERT_TRUE(store) << store.error();
    EXPECT_EQ(store->schema_version(), 2);
    check(*store);
  }
  {
    auto store = HistoryStore::open(path, Database::Mode::kCreate);
    ASSERT_TRUE(store) << store.error();
    EXPECT_EQ(store->schema_version(), kSchemaVersion);
    check(*store);
  }
}

}  // namespace
}  // namespace diskcond::rawio::history
