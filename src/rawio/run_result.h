// RunResult: everything one test measured, merged over its workers. Pure data plus derived rates;
// formatters (text, JSON) read it, nothing in it prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rawio/cpu_usage.h"
#include "rawio/interval_log.h"
#include "rawio/latency_histogram.h"
#include "rawio/steady_state.h"
#include "rawio/test_spec.h"

namespace diskcond::rawio {

// kSteadyState and kMaxRounds: a --steady-state test's watcher ended it (steady, or the most
// rounds allowed were done).
enum class StopReason { kCount, kTimeLimit, kCancelled, kSteadyState, kMaxRounds };
// "count", "time_limit", "cancelled", "steady_state", "max_rounds"
std::string_view stop_reason_key(StopReason reason);

// --verify's reading back of a write test (verify.h).
struct VerifyResult {
  uint64_t transfers_checked = 0;   // distinct offsets read back
  uint64_t mismatched = 0;          // of them, how many differ from what was written
  uint64_t first_bad_offset = 0;    // when mismatched: the lowest such offset
  std::string first_bad;            // when mismatched: which byte, expected and read
  bool through_page_cache = false;  // buffered target: flushed and dropped first, best effort
  int64_t elapsed_ns = 0;
  bool ok() const { return mismatched == 0; }
};

// One worker's share of a test (rawio -v 3 shows them, for fairness between workers).
struct WorkerFigures {
  uint64_t issued = 0;  // warm-up included
  uint64_t transfers = 0;
  uint64_t bytes = 0;
  SparseHistogram latency;  // its transfers' latency, as RunResult::latency
};

struct RunResult {
  TestSpec spec;
  std::string engine;
  unsigned iodepth = 1;  // in effect (1 for synchronous engines)
  bool direct = false;   // O_DIRECT was used
  uint64_t transfers = 0;
  uint64_t bytes = 0;
  int64_t elapsed_ns = 0;  // common start to the last completion
  CpuTimes cpu;            // all of rawio's threads, over the test
  // Per transfer, submission to completion (closed loop) or intended issue time to completion
  // (open loop: spec.rate_per_sec > 0), so a stall delays, and shows in, what was due during it.
  LatencyHistogram latency;
  // Open loop only (empty closed loop): how late each transfer was issued after its intended
  // time, its submission to completion, and the largest of the workers' behind_at_end_ns()
  // (how far behind schedule issue was when the deadline stopped it; 0 if on time).
  LatencyHistogram schedule_lag;
  LatencyHistogram service_latency;
  int64_t behind_at_end_ns = 0;
  std::vector<IntervalSample> intervals;  // per second from the start
  // The latency of the transfers completed in each second, as `intervals` (same length); their
  // sum is `latency`.
  std::vector<SparseHistogram> interval_latency;
  StopReason stopped_by = StopReason::kCount;
  std::vector<WorkerFigures> workers;  // one per worker, in worker order
  std::optional<VerifyResult> verify;  // --verify, write tests
  // --steady-state: the rounds and whether (and when) they were steady, judged on `intervals`.
  std::optional<SteadyState> steady_state;

  double seconds() const { return static_cast<double>(elapsed_ns) / 1e9; }
  double bytes_per_sec() const {
    return elapsed_ns > 0 ? static_cast<double>(bytes) / seconds() : 0.0;
  }
  double kib_per_sec() const { return bytes_per_sec() / 1024.0; }
  double transfers_per_sec() const {
    return elapsed_ns > 0 ? static_cast<double>(transfers) / seconds() : 0.0;
  }
  // Open loop: the rate asked for, and the one achieved (completions per second of elapsed time,
  // as the /sec column).
  double requested_rate_per_sec() const { return spec.rate_per_sec; }
  double achieved_rate_per_sec() const { return transfers_per_sec(); }
  double user_percent() const { return cpu_percent(cpu.user_ns, elapsed_ns); }
  double sys_percent() const { return cpu_percent(cpu.sys_ns, elapsed_ns); }
  double total_percent() const { return cpu_percent(cpu.user_ns + cpu.sys_ns, elapsed_ns); }
  double cpu_us_per_transfer() const {
    return transfers ? static_cast<double>(cpu.user_ns + cpu.sys_ns) / 1e3 / transfers : 0.0;
  }
};

// Something the figures do not mean, said next to them (honesty.h): a key for scripts and a line
// for people.
struct Caution {
  std::string key;  // page_cache | buffered | memory_backed | exceeds_interface | ...
  std::string text;
  bool operator==(const Caution&) const = default;
};

// One target's results, in test order, with what identifies the row.
struct TargetReport {
  std::string id;      // the row label ("anon" unless set)
  std::string target;  // path as given
  std::string kind;    // target_kind_key()
  std::string io_path;
  uint64_t area_bytes = 0;  // the area tested, from offset 0
  uint32_t sector_bytes = 0;
  std::vector<RunResult> tests;
  std::vector<Caution> cautions;  // printed after the tables; empty when there is nothing to say
};

}  // namespace diskcond::rawio
