// Formatters turn measured results into what the user reads. They never measure, and the
// measuring core never prints: the command runs the tests, then hands every TargetReport to one
// Formatter and writes its output to stdout.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "rawio/run_result.h"

namespace diskcond::rawio {

// The rate columns of the text tables (--units): kKib, the seed's "K/sec" and "/sec"; kMib,
// "MiB/sec" (2 decimals) and "IOPS"; kIops, "IOPS" alone with one decimal.
enum class Units { kKib, kMib, kIops };
std::string_view units_key(Units units);                 // "kib", "mib", "iops"
std::optional<Units> parse_units(std::string_view key);  // the inverse; nullopt for anything else
inline constexpr const char* kUnitsHelp =
    "Rate columns of the text tables: kib (default; K/sec and /sec, as the seed), mib (MiB/sec "
    "and IOPS), iops (IOPS alone, with one decimal)";

class Formatter {
 public:
  virtual ~Formatter() = default;
  // The whole output for these reports, ending in a newline.
  virtual std::string render(std::span<const TargetReport> reports) const = 0;
};

// The original's text: verbosity 0 gives one row per target with K/sec and /sec for each test;
// 1 gives one row per test with CPU use and transfer size; 2 adds a latency percentile table;
// 3 adds the per-worker table (format_worker_rows).
// Each ends with format_measured_time().
std::unique_ptr<Formatter> make_text_formatter(int verbosity, Units units = Units::kKib);
// One JSON document (schema in docs/rawio.md); `options` is echoed under "options".
std::unique_ptr<Formatter> make_json_formatter(nlohmann::json options);

// The pieces of the text output, for tests and for other commands.
std::string format_summary_table(std::span<const TargetReport> reports, Units units = Units::kKib);
std::string format_test_rows(std::span<const TargetReport> reports, Units units = Units::kKib);
std::string format_latency_rows(std::span<const TargetReport> reports);
// -v 3: one row per worker of each test (transfers, share, latency p50/p99/max), then a
// "Fairness" line per test with the least and most any worker did.
std::string format_worker_rows(std::span<const TargetReport> reports);
// One line per target with how long each test was measured (and the warm-up before it), then a
// format_open_loop_line() for each open-loop test, a format_steady_state_line() for each
// --steady-state test, a format_verify_line() per verified test, a "Caution: ..." line per caution
// of each target, then a PARTIAL line for each test an interrupt stopped.
std::string format_measured_time(std::span<const TargetReport> reports);
// "Verified anon RW: 81234 transfers read back, all as written (2.10 s)" or "VERIFY FAILED anon
// RW: 3 of 81234 transfers read back differ ...": --verify's verdict on a write test.
std::string format_verify_line(const std::string& id, const RunResult& t);
// "Steady state anon RR: reached in round 7 of 2 s (at 14.0 s): ..." or "Steady state anon RR:
// NOT reached in 25 rounds of 2 s: ...; these are not steady-state figures": a --steady-state
// test's verdict, with the last window's mean, range and slope against the rule.
std::string format_steady_state_line(const std::string& id, const RunResult& t);
// "Open loop anon RR: requested 2000/s poisson (seed 1), achieved 1998/s; issue lag p99 0.1 ms,
// max 212.4 ms[, 3.2 ms behind at the end]": what an open-loop test asked for and got.
std::string format_open_loop_line(const std::string& id, const RunResult& t);

}  // namespace diskcond::rawio
