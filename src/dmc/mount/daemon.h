// The per-mount daemon: a process that mounts the conditioned filesystem over a directory and
// serves it (FUSE loop, reply scheduler, control socket) until the mount goes away.
#pragma once

#include <sys/types.h>

#include <string>

#include "core/result.h"
#include "dmc/mount/mount_control.h"
#include "dmc/mount/run_paths.h"

namespace diskcond::mount {

struct DaemonConfig {
  std::string mount_point;  // canonical; the directory that gets mounted over
  int root_fd = -1;         // O_PATH|O_DIRECTORY of mount_point, opened before the mount
  MountSettings settings;   // REQUIRES: validate(settings.profile) is ok
  RunPaths paths;
  // Everyone the backing filesystem lets in may use the mount (root's mounts, and `dmc run`'s in
  // its own namespace). False for a mount an ordinary user starts on the host through
  // fusermount3: then only that user may (the kernel checks), as with any unprivileged FUSE mount
  // without user_allow_other in /etc/fuse.conf.
  bool allow_other = true;
};

// Forks the daemon (double fork + setsid, so it belongs to no caller) and waits until its mount
// serves: the kernel's INIT has been answered, the control socket listens and the state file is
// written. Returns the daemon's pid, or the daemon's one-line error. The caller keeps its
// config.root_fd (the daemon has its own copy).
Result<pid_t> spawn_daemon(const DaemonConfig& config);

// For `dmc run`: forks the daemon as the caller's own child (its own session, so a terminal's
// Ctrl-C reaches the command and not the daemon; SIGTERM when the caller dies, PR_SET_PDEATHSIG,
// so a killed `dmc run` leaves no daemon) in the caller's namespaces, and waits until its mount
// serves, as spawn_daemon does. The caller reaps it (waitpid). REQUIRES: single-threaded caller.
Result<pid_t> spawn_child_daemon(const DaemonConfig& config);

// The daemon's body, in the daemon process: mounts, serves, cleans up. Writes "ok <pid>\n" or
// "error: <message>\n" to `ready_fd` exactly once. Returns the process exit code.
int run_daemon(const DaemonConfig& config, int ready_fd);

}  // namespace diskcond::mount
