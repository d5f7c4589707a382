// verify: measures a conditioned mount and compares it with the disk model's predictions.
#include <fmt/format.h>
#include <sys/statvfs.h>

#include <cmath>
#include <optional>
#include <ostream>

#include "core/units.h"
#include "dmc/cli/command_support.h"
#include "dmc/cli/commands.h"
#include "dmc/cli/json_format.h"
#include "dmc/cli/mount_path.h"
#include "dmc/cli/verify_progress.h"
#include "dmc/verify.h"

namespace diskcond::dmc {
namespace {

// MiB/s for 1 MiB transfers, IOPS for small ones, as `dmc predict` prints them.
std::string figure(double iops, uint64_t block) {
  if (std::isinf(iops)) return "unlimited";
  if (block >= kMiB) return fmt::format("{:.1f} MiB/s", iops * static_cast<double>(block) / kMiB);
  // Fractional below 1000, where one IOPS is 0.1% or more.
  return iops < 1000 ? fmt::format("{:.1f} IOPS", iops) : fmt::format("{:.0f} IOPS", iops);
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFloor:
      return "floor";
    case Verdict::kFail:
      break;
  }
  return "fail";
}

// "pass", "FAIL", "floor: 62% of replies waited for the backing disk", "floor: this machine
// held replies 6.1% of the time (-0.8% without)", or "floor: an ideal device of this speed gets
// 5767 IOPS here (-33.3%)"; a FAIL measured against an ideal device says what it got.
std::string result_text(const VerifyCheck& c, double floor_share, double tolerance) {
  if (c.verdict == Verdict::kPass) return "pass";
  const uint64_t block = c.workload.block_bytes;
  auto ideal = [&](std::string_view what) {
    return fmt::format("{}: an ideal device of this speed gets {} here ({:+.1f}%)", what,
                       figure(*c.ideal_iops, block), (*c.ideal_iops / c.predicted.iops - 1) * 100);
  };
  if (c.verdict == Verdict::kFail) return c.ideal_iops ? ideal("FAIL") : "FAIL";
  const double backing = c.backing_bound_share.value_or(0);
  const bool host =
      c.host_delay_share && error_without_host_delays(c.error, *c.host_delay_share) >= -tolerance;
  if (backing >= floor_share || (!host && !c.ideal_iops)) {
    return fmt::format("floor: {:.0f}% of replies waited for the backing disk", backing * 100);
  }
  if (!host) return ideal("floor");
  return fmt::format("floor: this machine held replies {:.1f}% of the time ({:+.1f}% without)",
                     *c.host_delay_share * 100,
                     error_without_host_delays(c.error, *c.host_delay_share) * 100);
}

// " (the fastest of 3 runs: -7.2%, -30.1%, -1.1%)" for a workload measured more than once, else
// "".
std::string runs_text(const VerifyCheck& c) {
  if (c.runs_iops.size() < 2 || std::isinf(c.predicted.iops)) return "";
  std::string errors;
  for (double iops : c.runs_iops) {
    errors +=
        fmt::format("{}{:+.1f}%", errors.empty() ? "" : ", ", (iops / c.predicted.iops - 1) * 100);
  }
  return fmt::format(" (the fastest of {} runs: {})", c.runs_iops.size(), errors);
}

std::string format_checks(const std::vector<VerifyCheck>& checks, double tolerance,
                          double floor_share) {
  std::string out =
      fmt::format("{:<16} {:>14} {:>14} {:>8}  {}\n", "Workload", "Predicted", "Measured", "Error",
                  fmt::format("Result (within {:g}%)", tolerance * 100));
  for (const VerifyCheck& c : checks) {
    const uint64_t block = c.workload.block_bytes;
    std::string error = std::isinf(c.predicted.iops) ? "-" : fmt::format("{:+.1f}%", c.error * 100);
    out += fmt::format("{:<16} {:>14} {:>14} {:>8}  {}{}\n", c.label,
                       figure(c.predicted.iops, block), figure(c.measured_iops, block), error,
                       result_text(c, floor_share, tolerance), runs_text(c));
  }
  if (std::any_of(checks.begin(), checks.end(),
                  [](const VerifyCheck& c) { return c.verdict == Verdict::kFloor; })) {
    out +=
        "floor: this machine, not the profile, decided when replies left (the daemon's counts of\n"
        "replies that waited for the backing disk or for a CPU, or what waking a sleeping caller\n"
        "costs here, measured without the mount): not a failure of the mount\n";
  }
  if (std::any_of(checks.begin(), checks.end(),
                  [](const VerifyCheck& c) { return c.runs_iops.size() > 1; })) {
    out +=
        "runs: a workload that would have failed short of its prediction was measured again and\n"
        "the fastest run counts (this machine's stalls only slow a run; a run that is too fast\n"
        "fails)\n";
  }
  return out;
}

nlohmann::ordered_json checks_json(const std::string& mount, const Profile& profile,
                                   const std::vector<VerifyCheck>& checks, double tolerance) {
  using Json = nlohmann::ordered_json;
  auto finite = [](double v) { return std::isinf(v) ? Json(nullptr) : Json(v); };
  Json rows = Json::array();
  for (const VerifyCheck& c : checks) {
    rows.push_back(
        {{"workload", c.label},
         {"pattern", c.workload.pattern == Pattern::kRandom ? "random" : "sequential"},
         {"direction", c.workload.direction == Op::kRead ? "read" : "write"},
         {"block_bytes", c.workload.block_bytes},
         {"queue_depth", c.workload.queue_depth},
         {"predicted_iops", finite(c.predicted.iops)},
         {"predicted_bytes_per_sec", finite(c.predicted.bytes_per_sec)},
         {"measured_iops", c.measured_iops},
         {"measured_bytes_per_sec", c.measured_bytes_per_sec},
         {"error_fraction", std::isinf(c.predicted.iops) ? Json(nullptr) : Json(c.error)},
         {"pass", c.pass},
         {"verdict", verdict_name(c.verdict)},
         {"measured_seconds", c.measured_seconds},
         {"backing_bound_share",
          c.backing_bound_share ? Json(*c.backing_bound_share) : Json(nullptr)},
         {"host_delay_share", c.host_delay_share ? Json(*c.host_delay_share) : Json(nullptr)},
         {"ideal_iops", c.ideal_iops ? Json(*c.ideal_iops) : Json(nullptr)},
         {"runs_iops", c.runs_iops}});
  }
  bool all = std::all_of(checks.begin(), checks.end(), [](const VerifyCheck& c) { return c.pass; });
  return {{"schema_version", 1},
          {"mount", mount},
          {"profile", profile.name},
          {"tolerance_fraction", tolerance},
          {"pass", all},
          {"checks", rows}};
}

}  // namespace

Outcome run_verify(Context& ctx, const CommandArgs& args) {
  auto mount = resolve_mount_dir(args.positional[0]);
  if (!mount.ok()) return usage_error(mount.error());
  auto status = ctx.mounts().status(*mount);
  if (!status.ok())
    return failure(ExitCode::kFailed, fmt::format("cannot query {}: {}", *mount, status.error()));
  // A path inside a conditioned directory: measured there, against that directory's profile.
  const std::string holder =
      status->mounted && !status->mount_point.empty() ? status->mount_point : *mount;
  if (status->mounted && !status->daemon_alive)
    return failure(ExitCode::kStale, stale_mount_message(holder));
  if (!status->mounted) {
    return failure(ExitCode::kWrongState,
                   fmt::format("{} is not conditioned; start it with 'dmc start {} <profile>'",
                               *mount, *mount));
  }
  struct statvfs fs {};
  if (::statvfs(mount->c_str(), &fs) != 0 || fs.f_blocks == 0) {
    return failure(ExitCode::kFailed, fmt::format("cannot read the size of {}", *mount));
  }
  const uint64_t capacity = static_cast<uint64_t>(fs.f_blocks) * fs.f_frsize;

  VerifyPlan plan;
  if (args.has("quick")) plan.seconds_per_test_ns = 2 * kNsPerSec;
  const Profile& profile = status->settings.profile;
  std::optional<VerifyProgress> progress(std::in_place, ctx.err, ctx.err_is_terminal(),
                                         plan.workloads.size());
  // The mount's counters, read before and after each workload (status is open to anyone). verify
  // never switches conditioning off to measure the floor: every other caller of the mount would
  // get replies before the model's completion meanwhile.
  BackingBoundProbe probe = [&ctx, &holder]() -> Result<BackingBoundSample> {
    auto s = ctx.mounts().status(holder);
    if (!s.ok()) return make_error(s.error());
    if (!s->mounted || !s->daemon_alive)
      return make_error(fmt::format("{} is no longer conditioned", holder));
    return backing_bound_sample(*s);
  };
  // Each workload starts on a quiet disk: the mount's sync, as `dmc sync` (open to anyone).
  SettleMount settle = [&ctx, &holder]() { return ctx.mounts().sync(holder); };
  auto checks = verify_directory(
      *mount, profile, capacity, plan, [&](const std::string& label) { progress->show(label); },
      probe, settle);
  progress.reset();  // the line is gone before the results or the error
  if (!checks.ok())
    return failure(ExitCode::kFailed, fmt::format("cannot verify {}: {}", *mount, checks.error()));

  if (args.has("json")) {
    nlohmann::ordered_json j = checks_json(holder, profile, *checks, plan.tolerance);
    j["path"] = *mount;
    ctx.out << render_json(j);
  } else {
    if (holder != *mount) ctx.out << inside_line(*mount, holder);
    ctx.out << fmt::format("Profile: {}\n", profile.name)
            << format_checks(*checks, plan.tolerance, plan.floor_share);
  }
  auto failed =
      std::count_if(checks->begin(), checks->end(), [](const VerifyCheck& c) { return !c.pass; });
  if (failed > 0) {
    return failure(ExitCode::kOutOfTolerance,
                   fmt::format("{} of {} workloads outside {:g}% of the prediction", failed,
                               checks->size(), plan.tolerance * 100));
  }
  return success();
}

}  // namespace diskcond::dmc
