// boot: re-applies every mount stored with `start -boot`. packaging/systemd/dmc-boot.service runs
// it once after local file systems are mounted. One mount failing does not stop the others; a
// mount whose directory was deleted is skipped with a warning (not a failure: `dmc stop` of that
// path forgets it).
#include <fmt/format.h>

#include "dmc/cli/commands.h"
#include "dmc/cli/mount_path.h"

namespace diskcond::dmc {
namespace {

// Starts one persisted mount; returns the error line, or "" on success.
std::string boot_one(Context& ctx, const StoredMount& record) {
  auto mount = resolve_mount_dir(record.mount);
  if (!mount.ok()) return mount.error();
  if (Status s = ctx.mounts().check_conditionable(record.mount, {ctx.store.dir()}); !s.ok())
    return s.error();
  auto status = ctx.mounts().status(record.mount);
  if (!status.ok()) return fmt::format("cannot query: {}", status.error());
  if (status->mounted && status->daemon_alive) {
    ctx.out << fmt::format("{}: already conditioned ({})\n", record.mount,
                           status->settings.profile.name);
    return "";
  }
  if (status->mounted) {  // stale mount left by a dead daemon: clear it first
    if (Status s = ctx.mounts().stop(record.mount, /*force=*/true); !s.ok()) {
      return fmt::format("cannot clear the stale mount: {}", s.error());
    }
  }
  if (Status s = ctx.mounts().start(record.mount, record.settings); !s.ok()) return s.error();
  ctx.out << fmt::format("{}: conditioned ({})\n", record.mount, record.settings.profile.name);
  return "";
}

}  // namespace

Outcome run_boot(Context& ctx, const CommandArgs&) {
  auto lock = ctx.store.lock();
  if (!lock.ok())
    return failure(ExitCode::kFailed, fmt::format("settings store: {}", lock.error()));
  StoreListing listing = ctx.store.list();
  size_t failed = listing.problems.size();
  for (const std::string& problem : listing.problems) ctx.err << "dmc: boot: " << problem << "\n";
  size_t attempted = 0;
  for (const StoredMount& record : listing.mounts) {
    if (!record.boot) continue;
    if (path_is_missing(record.mount)) {  // deleted: nothing to condition, and no failure of boot's
      ctx.err << fmt::format(
          "dmc: warning: boot: {}: skipped: the directory no longer exists ('sudo dmc stop {}' "
          "forgets it)\n",
          record.mount, record.mount);
      continue;
    }
    ++attempted;
    std::string error = boot_one(ctx, record);
    if (error.empty()) continue;
    ++failed;
    ctx.err << fmt::format("dmc: boot: {}: {}\n", record.mount, error);
  }
  if (failed > 0) {
    return failure(ExitCode::kFailed, fmt::format("boot: {} of {} persisted mounts failed", failed,
                                                  attempted + listing.problems.size()));
  }
  return success();
}

}  // namespace diskcond::dmc
