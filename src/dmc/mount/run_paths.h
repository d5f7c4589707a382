// Where a conditioned mount's daemon can be found: a unix control socket and a state file in
// its owner's run directory, both named after the mount point. Root's is /run/diskcond (or
// $DISKCOND_RUN_DIR); an ordinary user's (`dmc start` without root) is /tmp/diskcond-<uid> (or
// $DISKCOND_RUN_DIR/user-<uid>), which anyone can find from the mount's owner alone: mode 0711,
// so others may connect to a socket they know the name of (for status) but not list it.
//
//   /run/diskcond/<name>.sock   control socket (mode 0666: anyone may ask for status)
//   /run/diskcond/<name>.json   {"pid":..,"mount_point":"..","socket":".."}
//   /run/diskcond/<name>.log    the daemon's stderr
// <name> escapes the mount point like systemd (posix::escape_path): "/tmp/my data" ->
// "tmp-my\x20data"; names that would not fit a socket address (108 bytes) become
// "h-<64-bit FNV-1a hash>".
#pragma once

#include <sys/types.h>

#include <string>

#include "core/result.h"

namespace diskcond::mount {

struct RunPaths {
  std::string socket;
  std::string state;
  std::string log;
};

std::string run_directory();
// The run directory of mounts started by `owner` (run_directory() for root).
std::string run_directory_of(uid_t owner);
std::string escape_mount_point(const std::string& canonical_path);
// The paths in run_directory_of(owner).
RunPaths run_paths_for(const std::string& canonical_path, uid_t owner = 0);
// The same names in another directory (a `dmc run` daemon's private one).
RunPaths run_paths_in(const std::string& dir, const std::string& canonical_path);

// Where `dmc run` makes its daemons' private run directories (dmc-run-XXXXXX): run_directory()
// for root, or for anyone who may write it (tests set $DISKCOND_RUN_DIR); else
// $XDG_RUNTIME_DIR when it is writable; else $TMPDIR or /tmp. Creates nothing.
std::string private_run_base();

struct DaemonState {
  pid_t pid = 0;
  std::string mount_point;
  std::string socket;
};

// Creates run_directory_of(owner) if needed: root's 0755, a user's 0711. A user's that exists
// must be a real directory (not a symlink) that `owner` owns and nobody else may write; else an
// error says whose it is (someone may have made it first to catch the user's daemon).
Status ensure_run_directory(uid_t owner = 0);
// Written atomically (temporary file, fsync, rename: posix::replace_file).
Status write_state(const std::string& path, const DaemonState& state);
Result<DaemonState> read_state(const std::string& path);
// Removes the socket and state files, and the log when it is empty (missing ones are fine).
void remove_run_files(const RunPaths& paths);

}  // namespace diskcond::mount
