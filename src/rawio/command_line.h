// The rawio command line: every option, its long form, its default and its check, in one place.
// Parsing touches nothing; it only turns argv into an Invocation or a one-line usage error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rawio/cli_rules.h"
#include "rawio/engine.h"
#include "rawio/formatter.h"
#include "rawio/target.h"
#include "rawio/test_spec.h"

namespace diskcond::rawio {

// Exit codes, documented in man/rawio.1. A signal ends rawio with 128 + its number.
enum ExitCode : int {
  kExitOk = 0,
  kExitIoError = 1,       // a transfer, open or set-up failed at run time
  kExitUsage = 2,         // a bad option, value or target; nothing was touched
  kExitRefused = 3,       // a write test was refused for safety; nothing was touched
  kExitRegression = 4,    // rawio compare: B significantly slower than A beyond --threshold
  kExitVerifyFailed = 5,  // --verify: data read back differs from what was written
};

struct Invocation {
  std::vector<TestKind> tests;  // in the original's order, no duplicates
  std::vector<std::string> targets;
  std::vector<std::string> ids;  // empty, one per target, or (with one target) one
  int verbosity = 0;
  std::optional<uint64_t> area_bytes;  // -n; unset: the whole device or file, or 256 MiB made
  uint32_t transfer_bytes = kDefaultTransferBytes;
  unsigned workers = kDefaultWorkers;
  unsigned iodepth = 1;
  unsigned submit_batch = 1;
  // Time based (the default): each test runs warmup_ns, then time_limit_ns measured. Count based
  // (-c): each test ends after transfer_count transfers (unset: one pass over the area, -c pass)
  // or at time_limit_ns, whichever first, with no warm-up.
  bool count_based = false;
  std::optional<uint64_t> transfer_count;
  int64_t time_limit_ns = kDefaultTimeLimitNs;  // kDefaultCountTimeLimitNs when count based
  int64_t warmup_ns = kDefaultWarmupNs;         // 0 when count based
  uint64_t seed = kDefaultSeed;
  // --rate: 0 closed loop (the default); above 0, open loop at this many transfers per second in
  // total over all workers, with --arrival spacing.
  double rate_per_sec = 0;
  Arrival arrival = Arrival::kFixed;
  const EngineInfo* engine = &default_engine();  // never null
  DirectMode direct = DirectMode::kAuto;
  std::vector<std::string> force_write;
  bool json = false;
  Units units = Units::kKib;  // --units: the text tables' rate columns
  bool progress = true;
  // --steady-state: each test runs in rounds of ss_window_ns (0: chosen after the first second)
  // until steady (steady_state.h) or ss_max_rounds rounds; not with -c or -t.
  bool steady_state = false;
  int64_t ss_window_ns = 0;
  size_t ss_max_rounds = 25;
  // --precondition: sequential-write passes over each target's area before its first test
  // (SNIA's workload-independent preconditioning); default 2 with --steady-state and a write
  // test, else 0.
  unsigned precondition_passes = 0;
  std::string latency_log;  // --latency-log: CSV of every measured transfer; empty: none
  bool verify = false;      // --verify: read back what each write test wrote and compare
  unsigned repeat = 1;      // --repeat: run each target's tests this many times, one report each
  bool save = false;        // --save: store the runs in the history database
  std::string db_path;      // --db; empty: history::default_database_path()
};

using ParsedCommandLine = ParsedLine<Invocation>;

ParsedCommandLine parse_command_line(int argc, const char* const* argv);

// The options as JSON output echoes them.
nlohmann::json options_json(const Invocation& invocation);

std::string_view direct_mode_key(DirectMode mode);  // "auto", "on", "off"

}  // namespace diskcond::rawio
