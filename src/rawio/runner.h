// run_test: the measuring core. Opens the target, starts spec.workers worker threads that wait at
// a barrier, stamps the common start, lets them run until the transfer count or the time limit
// (whichever first), and merges their statistics. The library entry point other commands
// (`dmc verify`) call; it prints nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/result.h"
#include "rawio/engine.h"
#include "rawio/run_result.h"
#include "rawio/target.h"
#include "rawio/test_spec.h"
#include "rawio/transfer_log.h"

namespace diskcond::rawio {

struct Progress {
  TestKind kind;
  int64_t elapsed_ns;
  uint64_t transfers;
  uint64_t bytes;
};

// Watches a running test from the calling thread (--steady-state): called at the measured times
// it asks for with the transfers completed so far, it can end the test early.
class RunWatcher {
 public:
  enum class Decision { kContinue, kSteady, kGiveUp };
  virtual ~RunWatcher() = default;
  // Measured time (ns after the warm-up) at which to be called next.
  virtual int64_t next_check_ns() const = 0;
  // kSteady and kGiveUp stop the workers (after their transfers in flight), and the result's
  // stopped_by is kSteadyState or kMaxRounds.
  virtual Decision check(int64_t measured_ns, uint64_t transfers) = 0;
};

struct RunOptions {
  const EngineInfo* engine = &default_engine();  // REQUIRES: not null
  // When set and it becomes true, workers stop after their transfers in flight complete and the
  // result has stopped_by == kCancelled. Read, never written, by run_test.
  const std::atomic<bool>* cancel = nullptr;
  // Called on the calling thread about once per second while the test runs.
  std::function<void(const Progress&)> on_progress;
  RunWatcher* watcher = nullptr;  // optional; called on the calling thread
  // --latency-log: when set, every worker logs each measured transfer, and after they have
  // stopped this gets the logs (worker order) and the measured start, on the calling thread.
  std::function<void(const std::vector<const TransferLog*>&, int64_t measure_start_ns)>
      on_transfer_logs;
};

// REQUIRES: spec.area_bytes <= target.size_bytes, spec.area_bytes >= spec.transfer_bytes (and
// >= workers * transfer_bytes for sequential tests), spec.workers >= 1, spec.iodepth >= 1,
// spec.time_limit_ns > 0, transfer size a multiple of target.sector_bytes when target.direct.
// Errors (open, engine set-up, a failed or short transfer) come back as one line naming the cause.
Result<RunResult> run_test(const Target& target, const TestSpec& spec, const RunOptions& options);

// Checks spec against target as run_test requires; an error names the offending value.
Status validate_spec(const Target& target, const TestSpec& spec);

}  // namespace diskcond::rawio
