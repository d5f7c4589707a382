// What `dmc status` reports about one directory, gathered from the mount machinery and the
// settings store; the text and JSON formatters print it and decide nothing.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "core/profile.h"
#include "dmc/cli/settings_store.h"
#include "dmc/mount/mount_control.h"
#include "dmc/mount/processes_inside.h"

namespace diskcond::dmc {

enum class ConditionerState {
  kOff,    // no conditioned mount on the directory
  kOn,     // conditioned, daemon serving
  kStale,  // a conditioned mount whose daemon died: I/O fails until `dmc stop` clears it
};

struct StatusView {
  std::string mount;  // the conditioned directory holding `path`, or `path` itself
  std::string path;   // the directory asked about (canonical)
  ConditionerState state = ConditionerState::kOff;
  // The settings the fields show: the live ones when on; the stored ones when off (what the next
  // `dmc start <mount>` applies); nullopt when off with nothing stored (fields print as zeros).
  std::optional<mount::MountSettings> settings;
  bool boot = false;  // stored `-boot`: to be re-applied at boot
  std::string
      boot_problem;  // with `boot`: why nothing will re-apply it ("" when dmc-boot.service will)
  pid_t daemon_pid = 0;                                // when on or stale (0 if unknown)
  std::optional<mount::MountCounters> counters;        // when on
  std::optional<mount::MountDiagnostics> diagnostics;  // when on
  // When on: processes whose cwd, root or files are in the directory underneath the mount
  // (there before `dmc start`); their I/O is not conditioned.
  std::vector<mount::ProcessInside> unconditioned_processes;
};

// REQUIRES: status.mount_point == the mount `stored` (if any) belongs to. `path`: the directory
// asked about (status.mount_point or a directory inside it).
StatusView make_status_view(const mount::MountStatus& status,
                            const std::optional<StoredMount>& stored, const std::string& path);

// The all-zero profile shown for an unconditioned directory with nothing stored.
Profile zero_profile();

}  // namespace diskcond::dmc
