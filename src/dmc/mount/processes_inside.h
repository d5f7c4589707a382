// Which processes hold a directory: their working directory, root directory, open files or mapped
// files are the directory or below it. A mount over a directory in place changes only what later
// path lookups find; a process already inside keeps the directory underneath (issue 13, item 3:
// `cd D && dmc start . 0 && rawio .` measured the unconditioned disk), so dmc start and status
// name them. Read from /proc/<pid>/{cwd,root,fd/*,maps}.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace diskcond::mount {

struct ProcessInside {
  pid_t pid = 0;
  std::string command;            // /proc/<pid>/comm ("bash")
  std::vector<std::string> uses;  // how it holds the directory, in this order: "cwd", "root",
                                  // "fd <n>" (each), "map" (once)
};

struct ProcessScan {
  std::string proc_dir = "/proc";
  std::vector<pid_t> ignore;  // never listed: dmc itself, the mount's daemon
  // When set, files on this device are not counted: a process whose cwd is on the conditioned
  // mount's own device sees the mount. Unset: everything below the directory counts (before the
  // mount exists, everything there will be the directory underneath).
  std::optional<dev_t> except_device;
};

// The processes holding `dir` (a canonical absolute path, not "/"), by pid. Only processes in the
// caller's mount namespace are looked at (another namespace's paths mean other directories), and
// only those the caller may inspect: without root, its own user's. Never fails: a process that
// exits or cannot be read during the scan is left out.
std::vector<ProcessInside> find_processes_inside(const std::string& dir,
                                                 const ProcessScan& scan = {});

// True when `path` is `dir` or below it. Both canonical; " (deleted)" after a path is ignored.
bool path_is_inside(const std::string& path, const std::string& dir);

}  // namespace diskcond::mount
