// Where a conditioned mount's daemon can be found: a unix control socket and a state file in
// the run directory (/run/diskcond, or $DISKCOND_RUN_DIR), both named after the mount point.
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
std::string escape_mount_point(const std::string& canonical_path);
// The paths in run_directory().
RunPaths run_paths_for(const std::string& canonical_path);
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

// Creates the run directory (0755) if needed.
Status ensure_run_directory();
// Written atomically (temporary file, fsync, rename: posix::replace_file).
Status write_state(const std::string& path, const DaemonState& state);
Result<DaemonState> read_state(const std::string& path);
// Removes the socket and state files, and the log when it is empty (missing ones are fine).
void remove_run_files(const RunPaths& paths);

}  // namespace diskcond::mount
