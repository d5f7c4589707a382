// start and stop: turning conditioning on and off. Both need root (checked by the dispatcher).
#include <fmt/format.h>

#include "dmc/cli/command_support.h"
#include "dmc/cli/commands.h"
#include "dmc/cli/mount_path.h"

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

  Outcome outcome;
  MountState state = read_mount_state(ctx, *mount, outcome);
  if (!outcome.ok()) return outcome;
  if (state.stale()) return failure(ExitCode::kStale, stale_mount_message(*mount));
  if (state.running()) {
    return failure(ExitCode::kWrongState,
                   fmt::format("{} is already conditioned (profile '{}'); change it with 'dmc select' or "
                               "'dmc configure', or run 'dmc stop {}' first",
                               *mount, state.status.settings.profile.name, *mount));
  }
  if (!named && !state.stored) {
    return failure(ExitCode::kWrongState,
                   fmt::format("no settings stored for {}; name a profile (see 'dmc list') or run "
                               "'dmc configure {} ...' first",
                               *mount, *mount));
  }

  StoredMount record;
  record.mount = *mount;
  record.settings.profile = named ? *named : state.stored->settings.profile;
  record.settings.cache = args.has("nocache")        ? CacheMode::kNoCache
                          : args.has("writethrough") ? CacheMode::kPageCache
                                                     : CacheMode::kWriteBack;
  record.boot = args.has("boot");

  if (Status s = ctx.mounts().start(*mount, record.settings); !s.ok()) {
    return failure(ExitCode::kFailed, fmt::format("cannot condition {}: {}", *mount, s.error()));
  }
  if (Status s = ctx.store.save(record); !s.ok()) {
    return failure(ExitCode::kFailed,
                   fmt::format("{} is conditioned, but its settings were not saved: {}", *mount, s.error()));
  }
  return success();
}

Outcome run_stop(Context& ctx, const CommandArgs& args) {
  auto mount = resolve_mount_dir(args.positional[0]);
  if (!mount.ok()) return usage_error(mount.error());
  bool force = args.has("force");

  Outcome outcome;
  MountState state = read_mount_state(ctx, *mount, outcome);
  if (!outcome.ok()) return outcome;
  bool was_boot = state.stored && state.stored->boot;
  if (!state.status.mounted && !was_boot) {
    return failure(ExitCode::kWrongState, fmt::format("{} is not conditioned", *mount));
  }
  if (state.status.mounted) {
    if (Status s = ctx.mounts().stop(*mount, force); !s.ok()) {
      std::string hint = force ? "" : fmt::format(" (if it is busy, 'dmc stop {} -force' detaches it lazily)", *mount);
      return failure(ExitCode::kFailed, fmt::format("cannot stop {}: {}{}", *mount, s.error(), hint));
    }
  }
  if (was_boot) {
    StoredMount record = *state.stored;
    record.boot = false;
    if (Status s = ctx.store.save(record); !s.ok()) {
      return failure(ExitCode::kFailed, fmt::format("cannot drop boot persistence of {}: {}", *mount, s.error()));
    }
    if (!state.status.mounted) ctx.out << fmt::format("{} was not conditioned; it will no longer be at boot\n", *mount);
  }
  return success();
}

}  // namespace diskcond::dmc
