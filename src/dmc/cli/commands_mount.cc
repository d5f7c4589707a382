// start and stop: turning conditioning on and off. Both need root (checked by the dispatcher).
#include <fmt/format.h>

#include "dmc/cli/command_support.h"
#include "dmc/cli/commands.h"
#include "dmc/cli/mount_path.h"
#include "dmc/cli/text_format.h"

namespace diskcond::dmc {

Outcome run_start(Context& ctx, const CommandArgs& args) {
  auto mount = resolve_mount_dir(args.positional[0]);
  if (!mount.ok()) return usage_error(mount.error());
  std::optional<Profile> named;
  if (args.positional.size() > 1) {
    auto profile = find_profile(ctx, args.positional[1]);
    if (!profile.ok()) return usage_error(profile.error());
    named = std::move(profile).value();
  }

  std::vector<FaultRule> faults;
  if (const std::string* file = args.value("faults")) {
    auto rules = read_fault_file(*file);
    if (!rules.ok()) return usage_error(rules.error());
    faults = std::move(rules).value();
  }

  // "/", pseudo file systems, dmc's own directories: refused before anything is touched.
  if (Status s = ctx.mounts().check_conditionable(*mount, {ctx.store.dir()}); !s.ok())
    return usage_error(s.error());

  if (Outcome allowed = check_may_change(ctx, *mount, "start"); !allowed.ok()) return allowed;
  if (args.has("boot") && !ctx.is_root()) {
    return failure(
        ExitCode::kNeedsRoot,
        "'-boot' installs a mount that dmc-boot.service re-applies and needs root; run it "
        "with sudo, or start without -boot");
  }
  Outcome outcome;
  MountState state = read_mount_state(ctx, *mount, outcome);
  if (!outcome.ok()) return outcome;
  if (state.stale()) return failure(ExitCode::kStale, stale_mount_message(state.mount()));
  if (state.running()) {
    const std::string what =
        state.inside()
            ? fmt::format("{} is inside the conditioned directory {}", *mount, state.mount())
            : fmt::format("{} is already conditioned", *mount);
    return failure(
        ExitCode::kWrongState,
        fmt::format("{} (profile '{}'); change it with 'dmc select' or 'dmc configure', or run "
                    "'dmc stop {}' first",
                    what, state.status.settings.profile.name, state.mount()));
  }
  if (!named && !state.stored) {
    return failure(ExitCode::kWrongState,
                   fmt::format("no settings stored for {}; name a profile (see 'dmc list') or run "
                               "'dmc configure {} ...' first",
                               *mount, *mount));
  }

  // Processes already inside keep the directory underneath: their I/O would not be conditioned.
  const std::vector<mount::ProcessInside> inside =
      ctx.processes_inside(*mount, /*mounted=*/false, 0);
  if (!inside.empty() && !args.has("force")) {
    return failure(
        ExitCode::kWrongState,
        fmt::format(
            "{} inside {} and would not be conditioned ({} the directory underneath): {}; "
            "leave it (cd elsewhere, close its files) or add -force",
            inside.size() == 1 ? "1 process is" : fmt::format("{} processes are", inside.size()),
            *mount, inside.size() == 1 ? "it keeps" : "they keep", format_processes(inside)));
  }

  StoredMount record;
  record.mount = *mount;
  record.settings.profile = named ? *named : state.stored->settings.profile;
  record.settings.cache = args.has("nocache")        ? mount::CacheMode::kNoCache
                          : args.has("writethrough") ? mount::CacheMode::kPageCache
                                                     : mount::CacheMode::kWriteBack;
  record.boot = args.has("boot");

  mount::MountSettings with_faults = record.settings;
  with_faults.faults = faults;
  with_faults.crashable = args.has("crashable");
  if (Status s = ctx.mounts().start(*mount, with_faults); !s.ok()) {
    return failure(ExitCode::kFailed, fmt::format("cannot condition {}: {}", *mount, s.error()));
  }
  if (Status s = ctx.store.save(record); !s.ok()) {
    return failure(
        ExitCode::kFailed,
        fmt::format("{} is conditioned, but its settings were not saved: {}", *mount, s.error()));
  }
  if (record.boot) {
    if (std::string problem = ctx.boot_problem(); !problem.empty()) {
      ctx.err << fmt::format(
          "dmc: warning: '-boot' is stored, but nothing will re-apply it at boot: {}\n", problem);
    }
  }
  for (size_t i = 0; i < faults.size(); ++i)  // ids are 1, 2, ... in the file's order
    ctx.out << fmt::format("fault rule {}: {}\n", i + 1, fault_rule_text(faults[i]));
  if (!inside.empty()) {
    ctx.err << fmt::format("dmc: warning: {} {} inside {} and not conditioned: {}\n", inside.size(),
                           inside.size() == 1 ? "process stays" : "processes stay", *mount,
                           format_processes(inside));
  }
  return success();
}

namespace {

// `dmc stop` of a directory that no longer exists: forgets what is stored for it (a '-boot'
// record would otherwise fail `dmc boot` forever). `missing_error` is resolve_mount_dir's.
Outcome forget_deleted_directory(Context& ctx, const std::string& arg,
                                 const std::string& missing_error) {
  auto path = resolve_missing_dir(arg);
  if (!path.ok()) return usage_error(missing_error);
  // Nothing stored: a mistyped path, an error that changes nothing (not even the lock file).
  auto known = ctx.store.load(*path);
  if (known.ok() && !known->has_value()) return usage_error(missing_error);
  auto lock = ctx.store.lock();
  if (!lock.ok())
    return failure(ExitCode::kFailed, fmt::format("settings store: {}", lock.error()));
  auto stored = ctx.store.load(*path);
  if (!stored.ok())
    return failure(ExitCode::kFailed, fmt::format("settings store: {}", stored.error()));
  if (!stored->has_value()) return usage_error(missing_error);
  if (Status s = ctx.store.remove(*path); !s.ok()) {
    return failure(ExitCode::kFailed, fmt::format("settings store: {}", s.error()));
  }
  ctx.out << fmt::format("{} no longer exists; its stored settings are forgotten{}\n", *path,
                         (*stored)->boot ? " (it will no longer be conditioned at boot)" : "");
  return success();
}

}  // namespace

Outcome run_sync(Context& ctx, const CommandArgs& args) {
  auto mount = resolve_mount_dir(args.positional[0]);
  if (!mount.ok()) return usage_error(mount.error());
  Outcome outcome;
  MountState state = read_mount_state(ctx, *mount, outcome);
  if (!outcome.ok()) return outcome;
  const std::string& target = state.mount();
  if (!state.status.mounted) {
    return failure(ExitCode::kWrongState, fmt::format("{} is not conditioned", *mount));
  }
  if (Status s = ctx.mounts().sync(target); !s.ok()) {
    return failure(ExitCode::kFailed, fmt::format("cannot sync {}: {}", target, s.error()));
  }
  if (state.inside()) ctx.out << inside_line(*mount, target);
  return success();
}

Outcome run_stop(Context& ctx, const CommandArgs& args) {
  auto mount = resolve_mount_dir(args.positional[0]);
  if (!mount.ok()) {
    if (path_is_missing(args.positional[0]))
      return forget_deleted_directory(ctx, args.positional[0], mount.error());
    return usage_error(mount.error());
  }
  bool force = args.has("force");

  if (Outcome allowed = check_may_change(ctx, *mount, "stop"); !allowed.ok()) return allowed;
  Outcome outcome;
  MountState state = read_mount_state(ctx, *mount, outcome);
  if (!outcome.ok()) return outcome;
  const std::string& target = state.mount();
  bool was_boot = state.stored && state.stored->boot;
  if (!state.status.mounted && !was_boot) {
    return failure(ExitCode::kWrongState, fmt::format("{} is not conditioned", *mount));
  }
  if (state.status.mounted) {
    if (Status s = ctx.mounts().stop(target, force); !s.ok()) {
      std::string hint =
          force ? "" : fmt::format("; 'dmc stop {} -force' detaches it lazily", target);
      return failure(ExitCode::kFailed,
                     fmt::format("cannot stop {}: {}{}", target, s.error(), hint));
    }
  }
  if (state.inside()) ctx.out << inside_line(*mount, target);
  if (was_boot) {
    StoredMount record = *state.stored;
    record.boot = false;
    if (Status s = ctx.store.save(record); !s.ok()) {
      return failure(ExitCode::kFailed,
                     fmt::format("cannot drop boot persistence of {}: {}", target, s.error()));
    }
    if (!state.status.mounted)
      ctx.out << fmt::format("{} was not conditioned; it will no longer be at boot\n", target);
  }
  return success();
}

}  // namespace diskcond::dmc
