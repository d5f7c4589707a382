#include "rawio/runner.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "posix/unique_fd.h"
#include "rawio/engine.h"
#include "rawio/worker.h"

namespace diskcond::rawio {
namespace {

// What the start barrier records when the last worker arrives.
struct StartOfTest {
  int64_t time_limit_ns = 0;
  int64_t warmup_ns = 0;
  TestClock clock;
  CpuTimes cpu;
  std::atomic<bool> started{false};

  static void stamp(void* self) {
    auto* s = static_cast<StartOfTest*>(self);
    s->cpu = process_cpu_times();
    s->clock.start_ns = monotonic_now_ns();
    s->clock.measure_start_ns = s->clock.start_ns + s->warmup_ns;
    s->clock.deadline_ns = s->clock.measure_start_ns + s->time_limit_ns;
    s->started.store(true);
  }
};

// The workers' transfers so far, from their progress counters.
uint64_t transfers_so_far(const std::vector<WorkerProgress>& progress) {
  uint64_t transfers = 0;
  for (const auto& p : progress) transfers += p.transfers.load(std::memory_order_relaxed);
  return transfers;
}

// Waits for every worker to finish, reporting progress about once a second of the measured time,
// turning a cancel request into the workers' stop flag, (after a warm-up) taking the CPU
// snapshot when the measured time starts, and calling the watcher when it asks. Returns the
// watcher's decision that stopped the test (kContinue if none did).
RunWatcher::Decision supervise(std::vector<std::thread>& threads,
                               const std::vector<WorkerProgress>& progress,
                               std::atomic<unsigned>& finished, std::atomic<bool>& stop,
                               StartOfTest& begin, const TestSpec& spec,
                               const RunOptions& options) {
  const TestClock& clock = begin.clock;
  int64_t next_report = 0;
  bool cpu_taken = spec.warmup_ns == 0;
  RunWatcher::Decision decision = RunWatcher::Decision::kContinue;
  while (finished.load() < threads.size()) {
    auto wake = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    if (options.watcher && begin.started.load() && decision == RunWatcher::Decision::kContinue) {
      auto check = std::chrono::steady_clock::time_point(
          std::chrono::nanoseconds(clock.measure_start_ns + options.watcher->next_check_ns()));
      wake = std::min(wake, check);
    }
    if (!cpu_taken && begin.started.load()) {
      // steady_clock is CLOCK_MONOTONIC on Linux, the clock monotonic_now_ns() reads.
      auto measure_start =
          std::chrono::steady_clock::time_point(std::chrono::nanoseconds(clock.measure_start_ns));
      wake = std::min(wake, measure_start);
    }
    std::this_thread::sleep_until(wake);
    if (options.cancel && options.cancel->load()) stop.store(true);
    if (!begin.started.load()) continue;
    int64_t now = monotonic_now_ns();
    if (now < clock.measure_start_ns) continue;
    if (!cpu_taken) {
      begin.cpu = process_cpu_times();
      cpu_taken = true;
    }
    if (options.watcher && decision == RunWatcher::Decision::kContinue &&
        now - clock.measure_start_ns >= options.watcher->next_check_ns()) {
      decision = options.watcher->check(now - clock.measure_start_ns, transfers_so_far(progress));
      if (decision != RunWatcher::Decision::kContinue) stop.store(true);
    }
    if (!options.on_progress) continue;
    if (next_report == 0) next_report = clock.measure_start_ns + 1'000'000'000;
    if (now < next_report) continue;
    next_report += 1'000'000'000;
    uint64_t transfers = transfers_so_far(progress);
    options.on_progress(
        {spec.kind, now - clock.measure_start_ns, transfers, transfers * spec.transfer_bytes});
  }
  for (auto& t : threads) t.join();
  return decision;
}

}  // namespace

std::string_view stop_reason_key(StopReason reason) {
  switch (reason) {
    case StopReason::kCount:
      return "count";
    case StopReason::kTimeLimit:
      return "time_limit";
    case StopReason::kCancelled:
      return "cancelled";
    case StopReason::kSteadyState:
      return "steady_state";
    case StopReason::kMaxRounds:
      return "max_rounds";
  }
  return "?";
}

Status validate_spec(const Target& target, const TestSpec& spec) {
  if (spec.transfer_bytes == 0) return make_error("transfer size must be at least 1 byte");
  if (spec.workers == 0) return make_error("need at least 1 worker");
  if (spec.iodepth == 0) return make_error("iodepth must be at least 1");
  if (spec.submit_batch == 0) return make_error("submit batch must be at least 1");
  if (spec.time_limit_ns <= 0) return make_error("time limit must be positive");
  if (spec.warmup_ns < 0) return make_error("warm-up must not be negative");
  if (spec.transfer_count == 0) return make_error("transfer count must be at least 1");
  if (!(spec.rate_per_sec >= 0) || spec.rate_per_sec > kMaxRatePerSec) {
    return make_error(fmt::format("rate {}/s is not from 0 (closed loop) to {:.0f}/s",
                                  spec.rate_per_sec, kMaxRatePerSec));
  }
  if (target.direct && spec.transfer_bytes % target.sector_bytes != 0) {
    return make_error(fmt::format(
        "transfer size {} is not a multiple of {}'s O_DIRECT alignment of {} bytes (use "
        "--direct=off for buffered I/O)",
        spec.transfer_bytes, target.name, target.sector_bytes));
  }
  if (spec.area_bytes > target.size_bytes) {
    return make_error(fmt::format("area of {} bytes is larger than {} ({} bytes)", spec.area_bytes,
                                  target.name, target.size_bytes));
  }
  uint64_t needed = is_random(spec.kind)
                        ? spec.transfer_bytes
                        : static_cast<uint64_t>(spec.transfer_bytes) * spec.workers;
  if (spec.area_bytes < needed) {
    return make_error(
        fmt::format("area of {} bytes on {} is too small for {} ({} bytes needed: "
                    "one transfer{})",
                    spec.area_bytes, target.name, test_title(spec.kind), needed,
                    is_random(spec.kind) ? "" : " per worker"));
  }
  return ok_status();
}

Result<RunResult> run_test(const Target& target, const TestSpec& spec, const RunOptions& options) {
  if (Status valid = validate_spec(target, spec); !valid) return make_error(valid.error());
  const EngineInfo& engine = *options.engine;

  const bool write = is_write(spec.kind);
  posix::UniqueFd file(
      ::open(target.io_path.c_str(), open_flags(target, write)));  // closed however the test ends
  if (!file.valid()) {
    return make_error(fmt::format("cannot open {} for {}: {}", target.io_path,
                                  write ? "writing" : "reading", strerror(errno)));
  }

  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned w = 0; w < spec.workers; ++w) {
    workers.push_back(std::make_unique<Worker>(spec, w));
    Status ready = workers.back()->prepare(file.get(), engine, spec.iodepth, target.sector_bytes,
                                           static_cast<bool>(options.on_transfer_logs));
    if (!ready) return make_error(ready.error());
  }

  StartOfTest begin;
  begin.time_limit_ns = spec.time_limit_ns;
  begin.warmup_ns = spec.warmup_ns;
  TestClock& clock = begin.clock;
  StartBarrier start(spec.workers, StartAction{&StartOfTest::stamp, &begin});
  std::atomic<bool> stop{false};
  std::atomic<unsigned> finished{0};
  std::vector<WorkerProgress> progress(spec.workers);
  CpuTimes cpu_end;
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < spec.workers; ++w) {
    threads.emplace_back([&, w] {
      workers[w]->run(start, clock, stop, progress[w]);
      // The last worker out closes the CPU span, so it covers the test and no thread teardown.
      if (finished.fetch_add(1) + 1 == spec.workers) cpu_end = process_cpu_times();
    });
  }
  const RunWatcher::Decision decision =
      supervise(threads, progress, finished, stop, begin, spec, options);

  RunResult result;
  result.spec = spec;
  result.engine = std::string(engine.name);
  result.iodepth = engine.caps.synchronous ? 1 : spec.iodepth;
  result.direct = target.direct;
  result.cpu = cpu_end - begin.cpu;
  IntervalLog intervals(interval_slots(spec.time_limit_ns));
  int64_t end_ns = clock.measure_start_ns;
  bool hit_deadline = false;
  for (const auto& w : workers) {
    if (!w->error().empty()) return make_error(fmt::format("{}: {}", target.name, w->error()));
    result.schedule_lag.merge(w->schedule_lag());
    result.service_latency.merge(w->service_latency());
    result.behind_at_end_ns = std::max(result.behind_at_end_ns, w->behind_at_end_ns());
    intervals.merge(w->intervals());
    result.transfers += w->transfers();
    result.bytes += w->bytes();
    end_ns = std::max(end_ns, w->end_ns());
    hit_deadline = hit_deadline || w->hit_deadline();
  }
  result.elapsed_ns = end_ns - clock.measure_start_ns;
  if (options.on_transfer_logs) {
    std::vector<const TransferLog*> logs;
    for (const auto& w : workers) logs.push_back(w->transfer_log());
    options.on_transfer_logs(logs, clock.measure_start_ns);
  }
  result.intervals = intervals.samples();
  std::vector<const IntervalHistograms*> seconds;
  for (const auto& w : workers) seconds.push_back(&w->interval_latency());
  result.interval_latency = merge_seconds(seconds, result.intervals.size(), result.latency);
  for (const auto& w : workers) {
    LatencyHistogram own;
    for (const SparseHistogram& s : w->interval_latency().seconds()) own.merge(s);
    result.workers.push_back({w->issued(), w->transfers(), w->bytes(), own.sparse()});
  }
  if (options.cancel && options.cancel->load()) {
    result.stopped_by = StopReason::kCancelled;
  } else if (decision == RunWatcher::Decision::kSteady) {
    result.stopped_by = StopReason::kSteadyState;
  } else if (decision == RunWatcher::Decision::kGiveUp) {
    result.stopped_by = StopReason::kMaxRounds;
  } else if (hit_deadline) {
    result.stopped_by = StopReason::kTimeLimit;
  }
  return result;
}

}  // namespace diskcond::rawio
