#include "dmc/cli/command_support.h"

#include <fmt/format.h>

#include <fstream>
#include <random>
#include <sstream>

#include "dmc/cli/mount_path.h"

namespace diskcond::dmc {

std::string stale_mount_message(const std::string& mount) {
  return fmt::format(
      "the daemon serving {} is not running (stale mount); run 'sudo dmc stop {}' to clear it",
      mount, mount);
}

bool callers_own_mount(Context& ctx, const std::string& arg) {
  auto named = resolve_mount_dir(arg);
  if (!named.ok()) return false;
  auto status = ctx.mounts().status(*named);
  return status.ok() && status->mounted && status->owner == ctx.uid();
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

Result<std::vector<FaultRule>> read_fault_file(const std::string& file) {
  std::ifstream in(file);
  if (!in) return make_error(fmt::format("cannot read the faults file '{}'", file));
  std::stringstream text;
  text << in.rdbuf();
  auto rules = parse_fault_file(text.str(), file);
  if (!rules.ok()) return rules;
  std::random_device random;
  for (FaultRule& rule : *rules) {
    if (needs_seed(rule) && !rule.has_seed) {
      rule.seed = random() | (uint64_t{random()} << 32);
      rule.has_seed = true;
    }
  }
  return rules;
}

Result<Profile> find_profile(const Context& ctx, const std::string& name_or_index) {
  return ctx.catalog().find(name_or_index);
}

}  // namespace diskcond::dmc
