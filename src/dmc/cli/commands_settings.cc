// select and configure: changing a mount's settings without turning conditioning on or off.
// A running mount changes live (MountControl::update, no remount); either way the settings store
// keeps the new settings, so a later `dmc start <mount>` without a profile applies them. A path
// inside a conditioned directory names that directory.
#include <fmt/format.h>

#include "dmc/cli/command_support.h"
#include "dmc/cli/commands.h"
#include "dmc/cli/configure_values.h"
#include "dmc/cli/mount_path.h"

namespace diskcond::dmc {
namespace {

// REQUIRES: `profile` passed validate(). Keeps the mount's cache mode and boot persistence. For a
// path inside a conditioned directory, changes that directory and says so.
Outcome apply_profile(Context& ctx, std::string_view command, const std::string& named,
                      const Profile& profile) {
  if (Outcome allowed = check_may_change(ctx, named, command); !allowed.ok()) return allowed;
  Outcome outcome;
  MountState state = read_mount_state(ctx, named, outcome);
  if (!outcome.ok()) return outcome;
  const std::string& mount = state.mount();
  if (state.stale()) return failure(ExitCode::kStale, stale_mount_message(mount));

  StoredMount record;
  record.mount = mount;
  if (state.running()) {
    record.settings = state.status.settings;
  } else if (state.stored) {
    record.settings = state.stored->settings;
  }
  record.settings.profile = profile;
  record.boot = state.stored && state.stored->boot;

  if (state.running()) {
    if (Status s = ctx.mounts().update(mount, record.settings); !s.ok()) {
      return failure(ExitCode::kFailed, fmt::format("cannot change {}: {}", mount, s.error()));
    }
  }
  if (Status s = ctx.store.save(record); !s.ok()) {
    std::string applied = state.running() ? "the mount runs with the new settings, but " : "";
    return failure(ExitCode::kFailed,
                   fmt::format("{}{}: settings not saved: {}", applied, mount, s.error()));
  }
  if (state.inside()) ctx.out << inside_line(named, mount);
  return success();
}

}  // namespace

Outcome run_select(Context& ctx, const CommandArgs& args) {
  auto mount = resolve_mount_dir(args.positional[0]);
  if (!mount.ok()) return usage_error(mount.error());
  auto profile = find_profile(ctx, args.positional[1]);
  if (!profile.ok()) return usage_error(profile.error());
  return apply_profile(ctx, "select", *mount, *profile);
}

Outcome run_configure(Context& ctx, const CommandArgs& args) {
  auto mount = resolve_mount_dir(args.positional[0]);
  if (!mount.ok()) return usage_error(mount.error());
  std::span<const std::string> values(args.positional.begin() + 1, args.positional.end());
  auto profile = parse_configure_values(values);
  if (!profile.ok()) return usage_error(profile.error());
  return apply_profile(ctx, "configure", *mount, *profile);
}

}  // namespace diskcond::dmc
