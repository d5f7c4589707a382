// Worker: one thread of a test. Owns its engine, buffers, offset generator and statistics, so
// the hot path (queue, submit, reap, timestamp, record) allocates nothing and takes no lock.
// The only shared state it touches while running is read-mostly: the stop flag and the start
// time, plus a relaxed store of its own progress counter on its own cache line.
#pragma once

#include <atomic>
#include <barrier>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "rawio/arrival_schedule.h"
#include "rawio/engine.h"
#include "rawio/interval_histograms.h"
#include "rawio/interval_log.h"
#include "rawio/latency_histogram.h"
#include "rawio/offsets.h"
#include "rawio/test_spec.h"
#include "rawio/transfer_log.h"

namespace diskcond::rawio {

// Shared by all workers of one test.
struct TestClock {
  int64_t start_ns = 0;          // written by the barrier's completion, before anyone is released
  int64_t measure_start_ns = 0;  // start_ns + the warm-up: completions before it are not counted
  int64_t deadline_ns = 0;       // measure_start_ns + the time limit
};

// The start barrier's completion step: runs once, on one worker, before any worker is released.
struct StartAction {
  void (*fn)(void*) = nullptr;
  void* context = nullptr;
  void operator()() noexcept {
    if (fn) fn(context);
  }
};
using StartBarrier = std::barrier<StartAction>;

struct alignas(64) WorkerProgress {
  std::atomic<uint64_t> transfers{0};
};

class Worker {
 public:
  Worker(const TestSpec& spec, unsigned index);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Allocates buffers aligned to `alignment` and makes the engine (and, with `log_transfers`,
  // the first chunk of the transfer log). Not the hot path.
  Status prepare(int fd, const EngineInfo& engine, unsigned depth, uint32_t alignment,
                 bool log_transfers = false);

  // The thread body: opens the engine on this thread, waits at `start`, then runs until its
  // share is done, the deadline passes or `stop` is set. Closed loop, it keeps `depth` transfers
  // in flight; open loop (spec.rate_per_sec > 0), it issues each transfer when its schedule says
  // (never before; late if no slot is free) and measures latency from that intended time. On a
  // failure (engine set-up or a transfer) it records error() and sets `stop` for everyone; it
  // always arrives at `start`.
  void run(StartBarrier& start, const TestClock& clock, std::atomic<bool>& stop,
           WorkerProgress& progress);

  // Per second of the measured time, like intervals(). Closed loop: submission to completion.
  // Open loop: intended issue time to completion.
  const IntervalHistograms& interval_latency() const { return interval_latency_; }
  // Open loop only (empty closed loop): how late each transfer was issued after its intended
  // time, and its submission to completion (what closed loop calls latency).
  const LatencyHistogram& schedule_lag() const { return schedule_lag_; }
  const LatencyHistogram& service_latency() const { return service_latency_; }
  // Open loop: how far behind its schedule the worker was when the deadline stopped it (the
  // deadline minus the intended time of the first transfer it did not issue); 0 if on time.
  int64_t behind_at_end_ns() const { return behind_at_end_ns_; }
  const IntervalLog& intervals() const { return intervals_; }
  uint64_t transfers() const { return transfers_; }
  uint64_t issued() const { return issued_; }  // warm-up included
  // --latency-log: every measured transfer, or nullptr when not asked for.
  const TransferLog* transfer_log() const { return log_ ? &*log_ : nullptr; }
  uint64_t bytes() const { return bytes_; }
  int64_t end_ns() const { return end_ns_; }
  bool hit_deadline() const { return hit_deadline_; }
  const std::string& error() const { return error_; }

 private:
  struct FreeDeleter {
    void operator()(void* p) const;
  };
  void record_error(int64_t result, uint64_t offset);
  void loop(const TestClock& clock, std::atomic<bool>& stop, WorkerProgress& progress);
  void open_loop(const TestClock& clock, std::atomic<bool>& stop, WorkerProgress& progress);
  // Takes a free slot and queues the next transfer in it (a write stamped first), meant to start
  // at `intended_ns` (closed loop: when it is submitted) and submitted at `submitted_ns`; one
  // more in flight and issued. REQUIRES: a free slot.
  void queue_transfer(int64_t intended_ns, int64_t submitted_ns);
  // An engine's return `rc`: below 0, records the error, sets `stop` and returns true.
  bool failed(int rc, std::atomic<bool>& stop);
  // What a reap returned (`n` completions, or an error below 0) at `now`: false on an error (the
  // loop ends), else the completions recorded and the progress updated.
  bool take_reaped(int n, int64_t now, const TestClock& clock, std::atomic<bool>& stop,
                   WorkerProgress& progress);
  // Records the completions in completions_[0, n), which ended at `now`, and frees their slots
  // (one less in flight each); a failed one records the error and sets `stop`. Latency runs from
  // the intended time; open loop also records schedule lag and service latency.
  void complete(int n, int64_t now, int64_t measure_start, std::atomic<bool>& stop);
  // The loop ended at `now`.
  void finish(int64_t now);

  TestSpec spec_;
  unsigned index_;
  uint64_t share_;
  OffsetGenerator offsets_;
  // Buffers before the engine: the engine, with anything still in flight, goes first.
  std::unique_ptr<uint8_t, FreeDeleter> buffers_;
  std::unique_ptr<Engine> engine_;
  std::string_view engine_name_;
  int fd_ = -1;
  unsigned depth_ = 1;
  std::optional<ArrivalSchedule> schedule_;  // open loop only
  std::vector<int64_t> submitted_ns_;        // per slot
  std::vector<int64_t> intended_ns_;         // per slot: submitted_ns_ closed loop
  std::vector<uint64_t> slot_offset_;        // per slot, for error messages
  std::vector<uint32_t> free_slots_;
  std::vector<Completion> completions_;
  IntervalHistograms interval_latency_;
  std::optional<TransferLog> log_;
  LatencyHistogram schedule_lag_;
  LatencyHistogram service_latency_;
  int64_t behind_at_end_ns_ = 0;
  IntervalLog intervals_;
  uint64_t transfers_ = 0;
  uint64_t issued_ = 0;     // warm-up included
  unsigned in_flight_ = 0;  // queued or submitted, not yet reaped
  uint64_t bytes_ = 0;
  int64_t end_ns_ = 0;
  bool hit_deadline_ = false;
  std::string error_;
};

}  // namespace diskcond::rawio
