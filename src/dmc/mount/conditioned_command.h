// `dmc run`: runs a command with a directory conditioned for it and its children only.
//
// In the calling process (dmc): a private mount namespace (private_namespace.h; for an ordinary
// user, inside a user namespace of their own), a private run directory (dmc-run-XXXXXX under
// private_run_base()) for the daemon's socket, state file and log, the daemon as a child
// (spawn_child_daemon: the very daemon `dmc start` runs), and, once its mount serves, the
// command. When the command exits, the daemon unmounts (as for `dmc stop`) and exits, and the run
// directory is removed. Nothing outside the namespace ever sees the mount, and the host's run
// directory and settings store are not touched, so `dmc status` outside says OFF throughout.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "dmc/mount/mount_control.h"

namespace diskcond::mount {

struct ConditionedCommand {
  std::string dir;                // canonical; REQUIRES: conditionable, not conditioned
  MountSettings settings;         // REQUIRES: validate(settings.profile) is ok
  std::vector<std::string> argv;  // REQUIRES: not empty; argv[0] is looked up in $PATH
};

// Runs it. REQUIRES: single-threaded caller, which stays in the private namespace afterwards
// (dmc exits right after). While the command runs, this process ignores SIGINT and SIGQUIT (a
// terminal sends them to the command too, as with system(3)) and passes SIGTERM and SIGHUP on
// to it. The command starts in the caller's working directory looked up again through the mount
// (a working directory inside `dir` is the conditioned one), with $DISKCOND_RUN_DIR set to the
// private run directory, so `dmc status <dir>` inside it finds the daemon.
// Errors, before the command started (nothing is left behind): /dev/fuse or user namespaces
// unavailable (private_mount_problem), no namespace, the daemon could not mount.
Result<CommandEnd> run_conditioned_command(const ConditionedCommand& request);

}  // namespace diskcond::mount
