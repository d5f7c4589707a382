#include "dmc/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/units.h"
#include "dmc/ideal_device.h"

#include "rawio/runner.h"
#include "rawio/target.h"

namespace diskcond::dmc {
namespace {

rawio::TestKind test_kind(const Workload& w) {
  const bool random = w.pattern == Pattern::kRandom;
  if (w.direction == Op::kRead)
    return random ? rawio::TestKind::kRandomRead : rawio::TestKind::kSequentialRead;
  return random ? rawio::TestKind::kRandomWrite : rawio::TestKind::kSequentialWrite;
}

// One workload on the test file: `test_ns` in all, the first `warmup_ns` not counted.
Result<rawio::RunResult> run_workload(const rawio::Target& target, const Workload& w,
                                      uint64_t file_bytes, int64_t test_ns, int64_t warmup_ns) {
  if (warmup_ns >= test_ns) warmup_ns = 0;  // a run shorter than the warm-up: all of it counts
  rawio::TestSpec spec;
  spec.kind = test_kind(w);
  spec.transfer_bytes = static_cast<uint32_t>(w.block_bytes);
  spec.workers = 1;
  spec.iodepth = w.queue_depth;
  spec.area_bytes = file_bytes;
  spec.transfer_count = UINT64_MAX / 2;
  spec.warmup_ns = warmup_ns;
  spec.time_limit_ns = test_ns - warmup_ns;
  rawio::RunOptions options;
  options.engine = rawio::find_engine(w.queue_depth > 1 ? "io_uring" : "psync");
  return rawio::run_test(target, spec, options);
}

// The mount's counters through `probe` (REQUIRES: set); the error says what failed.
Result<BackingBoundSample> read_counters(const BackingBoundProbe& probe) {
  auto sample = probe();
  if (!sample.ok())
    return make_error(fmt::format("cannot read the mount's counters: {}", sample.error()));
  return sample;
}

// One run of a workload, after settling the mount, with the mount's counters around it.
struct Run {
  rawio::RunResult result;
  std::optional<double> share, host_share;  // backing_bound_share(), host_delay_share() (QD1)
  bool idle_poll_held = false;
};

Result<Run> measure_once(const rawio::Target& target, const Workload& w, const std::string& label,
                         uint64_t file_bytes, int64_t test_ns, const VerifyPlan& plan,
                         const BackingBoundProbe& probe, const SettleMount& settle) {
  if (settle) {
    if (Status s = settle(); !s.ok())
      return make_error(fmt::format("{}: cannot sync the mount first: {}", label, s.error()));
  }
  // The mount's counters right before and right after the workload: read, never changed.
  auto before = probe ? read_counters(probe) : BackingBoundSample{};
  if (!before.ok()) return make_error(fmt::format("{}: {}", label, before.error()));
  const auto started = std::chrono::steady_clock::now();
  auto result = run_workload(target, w, file_bytes, test_ns, plan.warmup_ns);
  if (!result.ok()) return make_error(fmt::format("{}: {}", label, result.error()));
  const int64_t wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - started)
                              .count();
  Run run{*result, std::nullopt, std::nullopt, false};
  if (probe) {
    auto after = read_counters(probe);
    if (!after.ok()) return make_error(fmt::format("{}: {}", label, after.error()));
    run.share = backing_bound_share(*before, *after);
    run.idle_poll_held = after->idle_poll_held;
    // At queue depth 1 the machine's delays to replies add up to the caller's, unless the
    // requests reach the mount in pieces sent together: a piece whose backing read ended after
    // its due time is often not the last, which the caller waits for.
    const uint64_t piece =
        w.direction == Op::kRead ? after->read_request_max_bytes : after->write_request_max_bytes;
    const bool in_pieces = piece > 0 && w.block_bytes > piece;
    if (w.queue_depth == 1 && !in_pieces) {
      run.host_share = host_delay_share(*before, *after, wall_ns);
    }
  }
  return run;
}

VerifyCheck check(const std::string& label, const Workload& w, const Profile& profile,
                  const rawio::RunResult& measured, std::optional<double> share,
                  std::optional<double> host_share, std::optional<double> ideal_iops,
                  const VerifyPlan& plan) {
  VerifyCheck c;
  c.label = label;
  c.workload = w;
  c.predicted = predict(profile, w);
  // Everything that completed after the warm-up over the time it took: fractional, not whole
  // transfers per whole second.
  c.measured_iops = measured.transfers_per_sec();
  c.measured_bytes_per_sec = measured.bytes_per_sec();
  c.measured_seconds = measured.seconds();
  c.error = std::isinf(c.predicted.iops) ? 0 : c.measured_iops / c.predicted.iops - 1;
  c.backing_bound_share = share;
  c.host_delay_share = host_share;
  c.ideal_iops = ideal_iops;
  c.verdict = judge(c.predicted.iops, c.measured_iops, share, plan.tolerance, plan.floor_share,
                    host_share, ideal_iops);
  c.pass = c.verdict != Verdict::kFail;
  return c;
}

// More than `tolerance` below a finite prediction.
bool short_of(double predicted_iops, double measured_iops, double tolerance) {
  return !std::isinf(predicted_iops) && measured_iops < predicted_iops * (1 - tolerance);
}

}  // namespace

BackingBoundSample backing_bound_sample(const mount::MountStatus& status) {
  const mount::MountCounters& c = status.counters;
  const mount::MountDiagnostics& d = status.diagnostics;
  return BackingBoundSample{c.commands[0] + c.commands[1] + c.commands[2],
                            d.backing_bound_replies,
                            d.backing_bound_excess_total_ns + d.lateness_total_ns,
                            d.idle_poll_state == 2,
                            d.read_request_max_bytes,
                            d.write_request_max_bytes};
}

double backing_bound_share(const BackingBoundSample& before, const BackingBoundSample& after) {
  if (after.commands <= before.commands) return 0;
  if (after.backing_bound_replies < before.backing_bound_replies) return 0;  // another daemon
  const double share =
      static_cast<double>(after.backing_bound_replies - before.backing_bound_replies) /
      static_cast<double>(after.commands - before.commands);
  return std::min(share, 1.0);  // a command counted before the first sample, replied after it
}

double host_delay_share(const BackingBoundSample& before, const BackingBoundSample& after,
                        int64_t wall_ns) {
  if (wall_ns <= 0 || after.host_delay_ns <= before.host_delay_ns) return 0;
  const double share = static_cast<double>(after.host_delay_ns - before.host_delay_ns) /
                       static_cast<double>(wall_ns);
  return std::min(share, 1.0);
}

double error_without_host_delays(double error, double host_share) {
  return (1 + error) / (1 - host_share) - 1;
}

Verdict judge(double predicted_iops, double measured_iops, std::optional<double> share,
              double tolerance, double floor_share, std::optional<double> host_share,
              std::optional<double> ideal_iops) {
  if (std::isinf(predicted_iops)) return Verdict::kPass;  // nothing to hold the mount to
  const double error = measured_iops / predicted_iops - 1;
  if (std::fabs(error) <= tolerance) return Verdict::kPass;
  if (error > 0) return Verdict::kFail;
  if (share && *share >= floor_share) return Verdict::kFloor;
  if (host_share && *host_share < 1 &&
      error_without_host_delays(error, *host_share) >= -tolerance) {
    return Verdict::kFloor;
  }
  if (ideal_iops && *ideal_iops < predicted_iops * (1 - tolerance) &&
      measured_iops >= *ideal_iops * (1 - tolerance)) {
    return Verdict::kFloor;
  }
  return Verdict::kFail;
}

int64_t verify_test_ns(double predicted_iops, const VerifyPlan& plan) {
  int64_t ns = plan.seconds_per_test_ns;
  if (std::isinf(predicted_iops) || predicted_iops <= 0 || plan.min_transfers == 0) return ns;
  const double needed = static_cast<double>(plan.min_transfers) / predicted_iops * 1e9;
  const double wanted = static_cast<double>(plan.warmup_ns) + std::ceil(needed / 1e9) * 1e9;
  if (wanted > static_cast<double>(ns)) ns = static_cast<int64_t>(wanted);
  return std::min(ns, std::max(plan.max_seconds_per_test_ns, plan.seconds_per_test_ns));
}

uint64_t verify_file_bytes(const Profile& profile, const VerifyPlan& plan) {
  uint64_t bytes = plan.min_file_bytes;
  if (profile.type == DiskType::kHDD) {
    const double seconds = static_cast<double>(plan.seconds_per_test_ns) / 1e9;
    const uint64_t rate = std::max(profile.read_bytes_per_sec, profile.write_bytes_per_sec);
    if (rate == 0) return plan.max_file_bytes;
    bytes = std::max(bytes, static_cast<uint64_t>(static_cast<double>(rate) * seconds * 1.1));
  }
  bytes = std::min(bytes, plan.max_file_bytes);
  return bytes / kMiB * kMiB;  // whole 1 MiB transfers
}

Result<std::vector<VerifyCheck>> verify_directory(
    const std::string& dir, const Profile& profile, uint64_t capacity_bytes, const VerifyPlan& plan,
    const std::function<void(const std::string&)>& on_test, const BackingBoundProbe& probe,
    const SettleMount& settle) {
  auto target = rawio::inspect_target(dir);
  if (!target.ok()) return make_error(target.error());
  if (target->kind != rawio::TargetKind::kDirectory)
    return make_error(fmt::format("{} is not a directory", dir));
  const uint64_t file_bytes = verify_file_bytes(profile, plan);
  if (Status s = rawio::create_test_file(*target, file_bytes); !s.ok())
    return make_error(s.error());
  // Removes the test file on every return below.
  std::unique_ptr<rawio::Target, void (*)(rawio::Target*)> cleanup(
      &*target, [](rawio::Target* t) { rawio::remove_test_file(*t); });
  std::string warning;
  if (Status s = rawio::choose_direct_io(*target, rawio::DirectMode::kOn, &warning); !s.ok()) {
    return make_error(s.error());
  }

  std::vector<VerifyCheck> checks;
  for (const NamedWorkload& named : plan.workloads) {
    Workload w = resolve(named.workload, profile);
    w.span_fraction =
        std::min(1.0, static_cast<double>(file_bytes) / static_cast<double>(capacity_bytes));
    if (on_test) on_test(named.label);
    const double predicted_iops = predict(profile, w).iops;
    const int64_t test_ns = verify_test_ns(predicted_iops, plan);
    // A run that would fail short of the prediction is measured again, up to
    // VerifyPlan::runs_when_short runs in all; the fastest counts.
    std::optional<Run> best;
    std::vector<double> runs_iops;
    std::optional<double> ideal_iops;
    bool ideal_measured = false;
    for (int i = 0; i < std::max(1, plan.runs_when_short); ++i) {
      auto run = measure_once(*target, w, named.label, file_bytes, test_ns, plan, probe, settle);
      if (!run.ok()) return make_error(run.error());
      runs_iops.push_back(run->result.transfers_per_sec());
      if (!best || run->result.transfers_per_sec() > best->result.transfers_per_sec())
        best = std::move(*run);
      const double iops = best->result.transfers_per_sec();
      if (!short_of(predicted_iops, iops, plan.tolerance)) break;
      // Short at queue depth 1: what would any device of the model's speed get here? Under the
      // mount's conditions: with idle CPUs polling if the mount had them poll. If this process
      // may not ask for that (not root) there is no fair comparison, and so none.
      if (w.queue_depth == 1 && plan.ideal_device_budget_ns > 0 && !ideal_measured) {
        ideal_measured = true;
        const auto service_ns = static_cast<int64_t>(1e9 / predicted_iops);
        auto ideal = run_ideal_device(
            service_ns, ideal_device_requests(service_ns, plan.ideal_device_budget_ns),
            best->idle_poll_held, w.block_bytes);
        if (!ideal.ok()) return make_error(fmt::format("{}: {}", named.label, ideal.error()));
        if (ideal->idle_poll_held == best->idle_poll_held) ideal_iops = ideal->iops();
      }
      if (judge(predicted_iops, iops, best->share, plan.tolerance, plan.floor_share,
                best->host_share, ideal_iops) != Verdict::kFail) {
        break;
      }
    }
    checks.push_back(check(named.label, w, profile, best->result, best->share, best->host_share,
                           ideal_iops, plan));
    checks.back().runs_iops = std::move(runs_iops);
  }
  return checks;
}

}  // namespace diskcond::dmc
