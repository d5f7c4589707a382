#include "dmc/cli/command_support.h"

#include <fmt/format.h>

namespace diskcond::dmc {

std::string stale_mount_message(const std::string& mount) {
  return fmt::format(
      "the daemon serving {} is not running (stale mount); run 'sudo dmc stop {}' to clear it",
      mount, mount);
}

std::string inside_line(const std::string& named, const std::string& mount) {
  return fmt::format("{} is inside the conditioned directory {}\n", named, mount);
}

MountState read_mount_state(Context& ctx, const std::string& named, Outcome& outcome) {
  MountState state;
  state.named = named;
  outcome = success();
  auto lock = ctx.store.lock();
  if (!lock.ok()) {
    outcome = failure(ExitCode::kFailed, fmt::format("settings store: {}", lock.error()));
    return state;
  }
  state.lock = std::move(lock).value();
  auto status = ctx.mounts().status(named);
  if (!status.ok()) {
    outcome = failure(ExitCode::kFailed, fmt::format("cannot query {}: {}", named, status.error()));
    return state;
  }
  state.status = std::move(status).value();
  if (state.status.mount_point.empty() || !state.status.mounted) state.status.mount_point = named;
  auto stored = ctx.store.load(state.mount());
  if (!stored.ok()) {
    outcome = failure(ExitCode::kFailed, fmt::format("settings store: {}", stored.error()));
    return state;
  }
  state.stored = std::move(stored).value();
  return state;
}

Outcome check_may_change(Context& ctx, const std::string& named, std::string_view command) {
  if (ctx.is_root()) return success();
  auto status = ctx.mounts().status(named);
  if (!status.ok())
    return failure(ExitCode::kFailed, fmt::format("cannot query {}: {}", named, status.error()));
  if (status->owner == ctx.uid()) return success();
  const std::string where = status->mounted ? status->mount_point : named;
  const std::string whose = status->mounted ? fmt::format("conditioned by uid {}", status->owner)
                                            : fmt::format("owned by uid {}", status->owner);
  return failure(ExitCode::kNeedsRoot,
                 fmt::format("'dmc {}' on {} ({}) needs root: without root, dmc changes only your "
                             "own directories and mounts; run it with sudo",
                             command, where, whose));
}

Result<Profile> find_profile(const Context& ctx, const std::string& name_or_index) {
  return ctx.catalog().find(name_or_index);
}

}  // namespace diskcond::dmc
