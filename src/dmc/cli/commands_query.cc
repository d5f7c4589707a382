// The commands that only read: list, show, status. They work without root.
#include <fmt/format.h>

#include <algorithm>

#include "dmc/cli/command_support.h"
#include "dmc/cli/commands.h"
#include "dmc/cli/json_format.h"
#include "dmc/cli/mount_path.h"
#include "dmc/cli/status_view.h"
#include "dmc/cli/text_format.h"
#include "dmc/predict_report.h"

namespace diskcond::dmc {

Outcome run_list(Context& ctx, const CommandArgs& args) {
  ProfileCatalog catalog = ctx.catalog();
  for (const std::string& problem : catalog.problems())
    ctx.err << "dmc: warning: " << problem << "\n";
  const auto& profiles = catalog.profiles();
  if (args.has("json")) {
    ctx.out << render_json(list_json(profiles, builtin_profiles().size(), catalog.problems()));
  } else {
    ctx.out << format_profile_list(profiles);
  }
  return success();
}

Outcome run_show(Context& ctx, const CommandArgs& args) {
  ProfileCatalog catalog = ctx.catalog();
  auto profile = catalog.find(args.positional[0]);
  if (!profile.ok()) return usage_error(profile.error());
  const auto& all = catalog.profiles();
  size_t index = static_cast<size_t>(std::find(all.begin(), all.end(), *profile) - all.begin());
  if (args.has("json")) {
    ctx.out << render_json(show_json(index, index < builtin_profiles().size(), *profile));
  } else {
    ctx.out << format_profile(*profile);
  }
  return success();
}

Outcome run_predict(Context& ctx, const CommandArgs& args) {
  ProfileCatalog catalog = ctx.catalog();
  std::span<const Profile> profiles = catalog.profiles();
  size_t first_index = 0;
  if (!args.positional.empty()) {
    auto profile = catalog.find(args.positional[0]);
    if (!profile.ok()) return usage_error(profile.error());
    first_index = static_cast<size_t>(std::find(profiles.begin(), profiles.end(), *profile) -
                                      profiles.begin());
    profiles = profiles.subspan(first_index, 1);
  }
  if (args.has("json")) {
    nlohmann::ordered_json doc = {{"schema_version", kJsonSchemaVersion},
                                  {"profiles", predictions_json(profiles)}};
    ctx.out << render_json(doc);
  } else {
    ctx.out << format_prediction_table(profiles, first_index);
  }
  return success();
}

Outcome run_status(Context& ctx, const CommandArgs& args) {
  auto path = resolve_mount_dir(args.positional[0]);
  if (!path.ok()) return usage_error(path.error());
  auto status = ctx.mounts().status(*path);
  if (!status.ok())
    return failure(ExitCode::kFailed, fmt::format("cannot query {}: {}", *path, status.error()));
  // Like macOS, which reports the volume holding a path: a path inside a conditioned directory
  // reports that directory.
  if (status->mount_point.empty() || !status->mounted) status->mount_point = *path;
  auto stored = ctx.store.load(status->mount_point);
  if (!stored.ok()) ctx.err << "dmc: warning: settings store: " << stored.error() << "\n";
  StatusView view = make_status_view(*status, stored.ok() ? *stored : std::nullopt, *path);
  if (view.boot) view.boot_problem = ctx.boot_problem();
  if (view.state == ConditionerState::kOn) {
    view.unconditioned_processes =
        ctx.processes_inside(view.mount, /*mounted=*/true, view.daemon_pid);
  }
  const bool json = args.has("json");
  ctx.out << (json ? render_json(status_json(view)) : format_status(view));
  if (view.state == ConditionerState::kStale) {
    // JSON says "stale" itself: exit 5 without the line, so stdout and stderr do not both report.
    Outcome stale = failure(ExitCode::kStale, stale_mount_message(view.mount));
    stale.quiet = json;
    return stale;
  }
  return success();
}

}  // namespace diskcond::dmc
