#include "rawio/command_line.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <optional>

#include "core/one_line.h"
#include "core/units.h"
#include "rawio/cli_rules.h"
#include "rawio/engine.h"

namespace diskcond::rawio {
namespace {

constexpr unsigned kMaxWorkers = 1024;
constexpr unsigned kMaxIodepth = 4096;
constexpr uint64_t kMaxTransferBytes = 1ull << 30;
constexpr int64_t kMaxTimeLimitNs = 86'400'000'000'000;  // a day

// Text of the options that take sizes, times, counts and names, checked after CLI11 is done
// (CLI11 would saturate "99999999999999999999" and wrap "-1" into a uint64_t).
struct RawText {
  std::string area, transfer, time_limit, warmup, direct = "auto", count, seed, units = "kib";
  std::string rate, arrival, ss_window;
  std::optional<unsigned> precondition;
  bool steady_state_given = false, ss_window_given = false, ss_rounds_given = false,
       latency_log_given = false;
  std::string engine = std::string(default_engine().name);  // checked by CLI11
  bool all = false;
  bool no_progress = false;
  // Which options were on the command line at all: an empty value ("-n ''") is an error, not
  // the default.
  bool area_given = false, transfer_given = false, count_given = false, seed_given = false,
       db_given = false;
  bool time_given = false, warmup_given = false, rate_given = false, arrival_given = false;
};

// A whole number typed as digits only (no sign, no spaces, no unit) of at least `min`.
std::optional<uint64_t> parse_whole_number(const std::string& text, uint64_t min) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  bool digits_only = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits_only || ec != std::errc() || end != text.data() + text.size() || value < min)
    return std::nullopt;
  return value;
}

// A rate as --rate takes it: a positive decimal number of transfers per second, "/s" optional
// ("2000/s", "2000", "0.5/s"). nullopt for anything else, 0 and above kMaxRatePerSec included.
std::optional<double> parse_rate(std::string text) {
  if (text.ends_with("/s")) text.resize(text.size() - 2);
  if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos)
    return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (!(value > 0) || value > kMaxRatePerSec) return std::nullopt;
  return value;
}

const char* kDescription =
    "rawio: measure a storage device, file or directory with concurrent random and sequential\n"
    "reads and writes (after Greg Lehey's rawio). WRITE TESTS DESTROY THE DATA ON THE TARGET.\n";

std::unique_ptr<CLI::App> build_app(Invocation& inv, RawText& raw, bool tests[4]) {
  auto app = std::make_unique<CLI::App>(kDescription, "rawio");
  app->set_version_flag("--version", std::string("rawio (diskcond) ") + DISKCOND_VERSION);
  app->add_flag("-a,--all", raw.all, "Run all four tests: RR, SR, RW, SW");
  app->add_flag("-R,--random-read", tests[0], "Random read test (RR)");
  app->add_flag("-S,--sequential-read", tests[1], "Sequential read test (SR)");
  app->add_flag("-W,--random-write", tests[2], "Random write test (RW): destroys data");
  app->add_flag("-w,--sequential-write", tests[3], "Sequential write test (SW): destroys data");
  app->add_option("-v,--verbose", inv.verbosity,
                  "Output detail: 0 summary table, 1 one row per test with CPU, 2 adds latency, 3 "
                  "adds each worker's share and latency (fairness)")
      ->check(CLI::Range(0, 3))
      ->default_val(0);
  app->add_option(
         "-i,--id", inv.ids,
         "Row label (default anon; with several targets, each target's name); one per target")
      ->allow_extra_args(false)
      ->delimiter(',');
  app->add_option("-n,--size", raw.area,
                  "Size of the area tested, from offset 0 (k, m, g; b or s = 512-byte sectors); "
                  "default: whole device/file, 256m for a file rawio creates");
  app->add_option("-s,--transfer-size", raw.transfer, "Bytes per transfer (default 16k)");
  app->add_option("-p,--workers", inv.workers, "Concurrent workers (default 8)")
      ->check(CLI::Range(1u, kMaxWorkers));
  app->add_option("-q,--iodepth", inv.iodepth,
                  "Transfers in flight per worker (default 1; psync is always 1)")
      ->check(CLI::Range(1u, kMaxIodepth));
  app->add_option("--submit-batch", inv.submit_batch,
                  "Transfers queued per submission to the kernel (default 1, as fio)")
      ->check(CLI::Range(1u, kMaxIodepth));
  app->add_option("-c,--count", raw.count,
                  "Count based: transfers per test, shared by the workers, or 'pass' for one pass "
                  "over the area; ends at -t if sooner (default: time based)");
  app->add_option("-t,--time", raw.time_limit,
                  "Measured time per test (default 5s; units ns, us, ms, s); with -c, the limit "
                  "(default 10s)");
  app->add_option(
      "--warmup", raw.warmup,
      "Time each test runs before it is measured (default 1s; 0 for none; not with -c)");
  app->add_option("--seed", raw.seed,
                  "Seed of the random offsets and of --arrival poisson (default 1)");
  app->add_option("--rate", raw.rate,
                  "Open loop: issue N transfers per second IN TOTAL over all workers (each "
                  "worker takes every p-th), whatever the device does, and measure latency from "
                  "when each was due (default: closed loop)")
      ->type_name("N/s");
  app->add_option("--arrival", raw.arrival,
                  "With --rate: fixed (default; evenly spaced) or poisson (exponential gaps "
                  "drawn from --seed)");
  app->add_option(
         "-e,--engine", raw.engine,
         "I/O engine: " + engine_names() + " (default " + std::string(default_engine().name) + ")")
      ->check([](const std::string& name) {
        return find_engine(name)
                   ? std::string()
                   : fmt::format("unknown engine '{}' (known: {})", name, engine_names());
      });
  app->add_option("-d,--direct", raw.direct,
                  "O_DIRECT: auto (default; falls back to buffered with a warning), on, off");
  app->add_option("--force-write", inv.force_write,
                  "Allow write tests on this device or existing file despite its contents")
      ->allow_extra_args(false);
  app->add_flag("--json", inv.json, "Write one JSON document to stdout");
  app->add_option("--units", raw.units, kUnitsHelp);
  app->add_flag("--no-progress", raw.no_progress,
                "No progress line on stderr (shown only on a terminal)");
  app->add_flag("--steady-state", inv.steady_state,
                "Run each test in rounds until steady, as SNIA's PTS: over the last 5 rounds the "
                "range of IOPS within 20% of their mean and the least-squares slope within 10%; "
                "says whether and when it was reached (not with -c or -t)");
  app->add_option("--ss-window", raw.ss_window,
                  "With --steady-state: the round length, whole seconds (default: long enough for "
                  "about 1000 transfers at the first second's rate, 1s to 60s)")
      ->type_name("TIME");
  app->add_option("--ss-rounds", inv.ss_max_rounds,
                  "With --steady-state: stop after this many rounds, steady or not (default 25)")
      ->check(CLI::Range(size_t{5}, size_t{10000}))
      ->type_name("N");
  app->add_option("--precondition", raw.precondition,
                  "Write each target's area sequentially N times (128 KiB transfers) before its "
                  "tests; a write test's safety rules apply (default 2 with --steady-state and a "
                  "write test, else 0)")
      ->check(CLI::Range(0u, 100u))
      ->type_name("N");
  app->add_option("--latency-log", inv.latency_log,
                  "Write every measured transfer to FILE as CSV: id, test, worker, intended, "
                  "issue and completion times (ns from the end of the warm-up), latency, offset, "
                  "bytes (kept in memory, 40 bytes a transfer, until each test ends)")
      ->type_name("FILE");
  app->add_flag("--verify", inv.verify,
                "After each write test, read back every transfer it wrote and compare it with "
                "what was written; a mismatch fails the run (exit 5)");
  app->add_option("--repeat", inv.repeat,
                  "Run each target's tests N times in a row (default 1): rows ID#1..ID#N, and "
                  "with --save one run each, for rawio compare --last N")
      ->check(CLI::Range(1u, 1000u))
      ->type_name("N");
  auto* save = app->add_flag("--save", inv.save,
                             "Also store the results in the history database (see rawio report)");
  app->add_option(
         "--db", inv.db_path,
         "History database for --save (default ${XDG_DATA_HOME:-~/.local/share}/diskcond/rawio.db)")
      ->needs(save)
      ->type_name("PATH");
  app->add_option("targets", inv.targets, "Block devices, files or directories")->required();
  return app;
}

// --steady-state and its companions. Returns an error message or "".
std::string finish_steady_state(Invocation& inv, const RawText& raw) {
  if (!inv.steady_state && (raw.ss_window_given || raw.ss_rounds_given))
    return fmt::format("{}: needs --steady-state",
                       raw.ss_window_given ? "--ss-window" : "--ss-rounds");
  if (inv.steady_state && raw.count_given)
    return "--steady-state: runs until steady, not for a count; leave out -c";
  if (inv.steady_state && raw.time_given)
    return "--steady-state: runs until steady (at most --ss-rounds rounds of --ss-window); leave "
           "out -t";
  if (raw.ss_window_given) {
    auto window = parse_time_ns(raw.ss_window, TimeUnit::kSeconds);
    if (!window) return "--ss-window: " + window.error();
    if (*window < 1'000'000'000 || *window > 3'600'000'000'000 || *window % 1'000'000'000 != 0)
      return fmt::format("--ss-window: '{}' is not a whole number of seconds from 1s to 1h",
                         raw.ss_window);
    inv.ss_window_ns = *window;
  }
  if (raw.precondition) {
    inv.precondition_passes = *raw.precondition;
  } else if (inv.steady_state) {
    bool writes = false;
    for (TestKind kind : inv.tests) writes = writes || is_write(kind);
    inv.precondition_passes = writes ? 2 : 0;
  }
  return "";
}

// Fills in the values CLI11 left as text. Returns an error message or "".
std::string finish(Invocation& inv, const RawText& raw) {
  if (raw.area_given) {
    auto area = parse_size(raw.area);
    if (!area) return "-n/--size: " + area.error();
    if (*area == 0) return "-n/--size: the area must not be empty";
    inv.area_bytes = *area;
  }
  if (raw.transfer_given) {
    auto transfer = parse_size(raw.transfer);
    if (!transfer) return "-s/--transfer-size: " + transfer.error();
    if (*transfer == 0 || *transfer > kMaxTransferBytes) {
      return fmt::format("-s/--transfer-size: '{}' must be between 1 byte and 1g", raw.transfer);
    }
    inv.transfer_bytes = static_cast<uint32_t>(*transfer);
  }
  if (raw.count_given) {
    inv.count_based = true;
    if (raw.count != "pass") {
      inv.transfer_count = parse_whole_number(raw.count, 1);
      if (!inv.transfer_count) {
        return fmt::format("-c/--count: '{}' is not 'pass' or a whole number from 1 to 2^64-1",
                           raw.count);
      }
    }
  }
  if (raw.seed_given) {
    auto seed = parse_whole_number(raw.seed, 0);
    if (!seed) return fmt::format("--seed: '{}' is not a whole number from 0 to 2^64-1", raw.seed);
    inv.seed = *seed;
  }
  if (raw.rate_given) {
    auto rate = parse_rate(raw.rate);
    if (!rate) {
      return fmt::format(
          "--rate: '{}' is not a number of transfers per second above 0 and at most 1e9 "
          "(such as 2000/s)",
          raw.rate);
    }
    inv.rate_per_sec = *rate;
  }
  if (raw.arrival_given) {
    auto arrival = parse_arrival(raw.arrival);
    if (!arrival) return fmt::format("--arrival: '{}' is not fixed or poisson", raw.arrival);
    if (!raw.rate_given) return "--arrival: needs --rate (arrivals are for open-loop runs)";
    inv.arrival = *arrival;
  }
  if (std::string error = finish_steady_state(inv, raw); !error.empty()) return error;
  if (inv.verify && std::none_of(inv.tests.begin(), inv.tests.end(), is_write))
    return "--verify: checks what write tests wrote; select -W or -w";
  inv.progress = !raw.no_progress;
  inv.engine = find_engine(raw.engine);
  inv.time_limit_ns = inv.count_based ? kDefaultCountTimeLimitNs : kDefaultTimeLimitNs;
  if (raw.time_given) {
    auto limit = parse_time_ns(raw.time_limit, TimeUnit::kSeconds);
    if (!limit) return "-t/--time: " + limit.error();
    if (*limit <= 0 || *limit > kMaxTimeLimitNs) {
      return fmt::format("-t/--time: '{}' must be more than 0 and at most a day", raw.time_limit);
    }
    inv.time_limit_ns = *limit;
  }
  inv.warmup_ns = inv.count_based ? 0 : kDefaultWarmupNs;
  if (raw.warmup_given) {
    auto warmup = parse_time_ns(raw.warmup, TimeUnit::kSeconds);
    if (!warmup) return "--warmup: " + warmup.error();
    if (*warmup < 0 || *warmup > kMaxTimeLimitNs) {
      return fmt::format("--warmup: '{}' must be from 0 to a day", raw.warmup);
    }
    if (inv.count_based && *warmup != 0) {
      return "--warmup: a count-based run (-c) has no warm-up; leave out -c for a time-based run";
    }
    inv.warmup_ns = *warmup;
  }
  if (auto units = parse_units(raw.units)) {
    inv.units = *units;
  } else {
    return fmt::format("--units: '{}' is not kib, mib or iops", raw.units);
  }
  if (raw.direct == "auto") {
    inv.direct = DirectMode::kAuto;
  } else if (raw.direct == "on") {
    inv.direct = DirectMode::kOn;
  } else if (raw.direct == "off") {
    inv.direct = DirectMode::kOff;
  } else {
    return fmt::format("-d/--direct: '{}' is not auto, on or off", raw.direct);
  }
  if (inv.tests.empty()) {
    return "no test selected: use -a (all), -R, -S, -W or -w (see --help)";
  }
  for (const std::string& id : inv.ids) {
    if (id.empty()) return "-i/--id: an ID must not be empty";
  }
  if (raw.db_given && inv.db_path.empty()) return "--db: the database path is empty";
  if (raw.latency_log_given && inv.latency_log.empty())
    return "--latency-log: the file name is empty";
  if (inv.ids.size() > 1 && inv.ids.size() != inv.targets.size()) {
    return fmt::format("-i/--id: {} ids for {} targets (give one id, or one per target)",
                       inv.ids.size(), inv.targets.size());
  }
  if (inv.ids.size() == 1 && inv.targets.size() > 1) {
    return fmt::format(
        "-i/--id: one id for {} targets (give one per target, or none to label "
        "rows by target name)",
        inv.targets.size());
  }
  return "";
}

}  // namespace

std::string_view direct_mode_key(DirectMode mode) {
  switch (mode) {
    case DirectMode::kAuto:
      return "auto";
    case DirectMode::kOn:
      return "on";
    case DirectMode::kOff:
      return "off";
  }
  return "?";
}

ParsedCommandLine parse_command_line(int argc, const char* const* argv) {
  ParsedCommandLine parsed;
  Invocation& inv = parsed.invocation;
  RawText raw;
  bool tests[4] = {false, false, false, false};
  auto app = build_app(inv, raw, tests);
  static_cast<ParseOutcome&>(parsed) = parse_by_rules(
      *app, argc, argv, "rawio", "",
      "\nrawio report [--db PATH] [RUN...] [--last N] [--id ID...] [-v N] [--units U] "
      "[--json] [--plot FILE] [--list]\n"
      "  prints saved runs side by side (rawio report --help).\n"
      "rawio compare [--last N] [--metric iops|p99] [--threshold PCT] A B\n"
      "  tells whether B is faster or slower than A, with statistics (rawio compare "
      "--help).\n"
      "\nExit status: 0 ok, 1 run-time I/O error (or the history database could not be "
      "written), 2 usage error, 3 write refused for "
      "safety, 5 --verify found data that differs from what was written, 128+N stopped by "
      "signal N.\nSee rawio(1) for the output columns and "
      "the safety rules.\n");
  if (parsed.action != ParseAction::kRun) return parsed;
  for (int i = 0; i < 4; ++i) {
    if (raw.all || tests[i]) inv.tests.push_back(kAllTests[i]);
  }
  raw.area_given = app->count("--size") > 0;
  raw.transfer_given = app->count("--transfer-size") > 0;
  raw.count_given = app->count("--count") > 0;
  raw.time_given = app->count("--time") > 0;
  raw.warmup_given = app->count("--warmup") > 0;
  raw.seed_given = app->count("--seed") > 0;
  raw.rate_given = app->count("--rate") > 0;
  raw.arrival_given = app->count("--arrival") > 0;
  raw.db_given = app->count("--db") > 0;
  raw.ss_window_given = app->count("--ss-window") > 0;
  raw.ss_rounds_given = app->count("--ss-rounds") > 0;
  raw.latency_log_given = app->count("--latency-log") > 0;
  std::string error = repeated_flag_error(*app);
  if (error.empty()) error = finish(inv, raw);
  if (!error.empty()) {
    parsed.action = ParsedCommandLine::Action::kUsageError;
    parsed.text = one_line(error);
  }
  return parsed;
}

nlohmann::json options_json(const Invocation& inv) {
  nlohmann::json tests = nlohmann::json::array();
  for (TestKind kind : inv.tests) tests.push_back(std::string(test_code(kind)));
  return {
      {"tests", tests},
      {"targets", inv.targets},
      {"ids", inv.ids},
      {"verbosity", inv.verbosity},
      {"area_bytes", inv.area_bytes ? nlohmann::json(*inv.area_bytes) : nlohmann::json()},
      {"transfer_bytes", inv.transfer_bytes},
      {"workers", inv.workers},
      {"iodepth", inv.iodepth},
      {"submit_batch", inv.submit_batch},
      {"time_based", !inv.count_based},
      {"transfer_count", inv.transfer_count ? nlohmann::json(*inv.transfer_count)
                         : inv.count_based  ? nlohmann::json("pass")
                                            : nlohmann::json()},
      {"time_limit_ns", inv.time_limit_ns},
      {"warmup_ns", inv.warmup_ns},
      {"seed", inv.seed},
      {"rate_per_sec", inv.rate_per_sec > 0 ? nlohmann::json(inv.rate_per_sec) : nlohmann::json()},
      {"arrival", inv.rate_per_sec > 0 ? nlohmann::json(std::string(arrival_key(inv.arrival)))
                                       : nlohmann::json()},
      {"engine", std::string(inv.engine->name)},
      {"direct", std::string(direct_mode_key(inv.direct))},
      {"force_write", inv.force_write},
      {"units", std::string(units_key(inv.units))},
      {"progress", inv.progress},
      {"steady_state", inv.steady_state},
      {"ss_window_ns", inv.steady_state && inv.ss_window_ns > 0 ? nlohmann::json(inv.ss_window_ns)
                                                                : nlohmann::json()},
      {"ss_max_rounds", inv.steady_state ? nlohmann::json(inv.ss_max_rounds) : nlohmann::json()},
      {"precondition_passes", inv.precondition_passes},
      {"verify", inv.verify},
      {"latency_log", inv.latency_log.empty() ? nlohmann::json() : nlohmann::json(inv.latency_log)},
      {"repeat", inv.repeat}};
}

}  // namespace diskcond::rawio
