// dmc run: a command run with a directory conditioned for it and its children only. Any user;
// the mount machinery (MountControl::run) makes the private namespace, the daemon and the mount.
// -faults FILE and -crashable are dmc start's: the mount starts with those rules and undo log.
#include <fmt/format.h>

#include "dmc/cli/command_support.h"
#include "dmc/cli/commands.h"
#include "dmc/cli/mount_path.h"

namespace diskcond::dmc {

Outcome run_conditioned(Context& ctx, const CommandArgs& args) {
  auto dir = resolve_mount_dir(args.positional[0]);
  if (!dir.ok()) return usage_error(dir.error());
  auto profile = find_profile(ctx, args.positional[1]);
  if (!profile.ok()) return usage_error(profile.error());
  if (args.has("writethrough") && args.has("nocache")) {
    return usage_error("-writethrough and -nocache exclude each other (see 'dmc run --help')");
  }
  std::vector<FaultRule> faults;
  if (const std::string* file = args.value("faults")) {
    auto rules = read_fault_file(*file);
    if (!rules.ok()) return usage_error(rules.error());
    faults = std::move(rules).value();
  }
  // "/", pseudo file systems, dmc's own directories: refused as by start.
  if (Status s = ctx.mounts().check_conditionable(*dir, {ctx.store.dir()}); !s.ok())
    return usage_error(s.error());
  // A directory `dmc start` conditions (or one inside it) would be conditioned twice.
  auto status = ctx.mounts().status(*dir);
  if (!status.ok())
    return failure(ExitCode::kFailed,
                   fmt::format("cannot read the state of {}: {}", *dir, status.error()));
  if (status->mounted && !status->daemon_alive)
    return failure(ExitCode::kStale, stale_mount_message(status->mount_point));
  if (status->mounted) {
    const std::string what =
        status->mount_point == *dir
            ? fmt::format("{} is already conditioned", *dir)
            : fmt::format("{} is inside the conditioned directory {}", *dir, status->mount_point);
    return failure(
        ExitCode::kWrongState,
        fmt::format("{} (profile '{}'); run the command there as it is, or 'dmc stop {}' first",
                    what, status->settings.profile.name, status->mount_point));
  }

  mount::MountSettings settings;
  settings.profile = std::move(profile).value();
  settings.cache = args.has("nocache")        ? mount::CacheMode::kNoCache
                   : args.has("writethrough") ? mount::CacheMode::kPageCache
                                              : mount::CacheMode::kWriteBack;
  settings.faults = faults;
  settings.crashable = args.has("crashable");
  // Stdout is the command's: the rules (with the seeds dmc picked) go to stderr, before it runs.
  for (size_t i = 0; i < faults.size(); ++i)  // ids are 1, 2, ... in the file's order
    ctx.err << fmt::format("dmc: fault rule {}: {}\n", i + 1, fault_rule_text(faults[i]));
  auto end = ctx.mounts().run(*dir, settings, args.command);
  if (!end.ok())
    return failure(ExitCode::kFailed,
                   fmt::format("cannot condition {} for the command: {}", *dir, end.error()));
  for (const std::string& warning : end->warnings)
    ctx.err << fmt::format("dmc: warning: {}\n", warning);
  if (!end->error.empty()) return failure(static_cast<ExitCode>(end->exit_code), end->error);
  return passed_through(end->exit_code);
}

}  // namespace diskcond::dmc
