// Small steps several dmc commands share.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/fault_rules.h"
#include "core/profile.h"
#include "core/result.h"
#include "dmc/cli/context.h"
#include "dmc/cli/exit_code.h"
#include "dmc/cli/settings_store.h"

namespace diskcond::dmc {

// The one line for a mount whose daemon died, with the fix.
std::string stale_mount_message(const std::string& mount);

// Where a mount stands before a command changes it. A command acts on mount(): the conditioned
// directory holding the path the user named (like macOS, which reports the volume holding a
// path), or that path itself when no conditioned mount holds it.
struct MountState {
  StoreLock lock;                     // held until the command is done
  std::string named;                  // the canonical path the user named
  mount::MountStatus status;          // from the mount machinery, for `named`
  std::optional<StoredMount> stored;  // from the settings store, for mount()

  const std::string& mount() const { return status.mount_point; }
  bool inside() const { return mount() != named; }  // named is below the conditioned mount()
  bool running() const { return status.mounted && status.daemon_alive; }
  bool stale() const { return status.mounted && !status.daemon_alive; }
};

// Locks the store, then queries both for the path `named`; errors come back as the Outcome to
// return (kFailed). On success `outcome` is success() and the state is filled in.
MountState read_mount_state(Context& ctx, const std::string& named, Outcome& outcome);

// For the commands that change a mount (start, stop, select, configure), before they lock the
// store: root may change any; an ordinary user only their own - a conditioned directory they
// started, or a directory they own that is not conditioned. Success, or kNeedsRoot with the
// line that says whose it is (or kFailed when the path cannot be queried). The mount machinery
// and the daemon check again: this is for the message.
Outcome check_may_change(Context& ctx, const std::string& named, std::string_view command);

// True when `arg` names a directory inside a conditioned mount the caller made without root
// (`dmc start` or `dmc run` by an ordinary user): they may change its fault rules and crash it,
// as the daemon agrees (SO_PEERCRED).
bool callers_own_mount(Context& ctx, const std::string& arg);

// The line that says which conditioned directory a command acted on for a path inside it:
// "<named> is inside the conditioned directory <mount>\n".
std::string inside_line(const std::string& named, const std::string& mount);

// The rules of a faults file (`dmc start|run -faults FILE`; core/fault_rules.h parse_fault_file),
// in the file's order. A rule that draws from a seed and has none gets one here (the caller prints
// it). Errors: one line naming the file (and the line of a bad rule); nothing else is touched.
Result<std::vector<FaultRule>> read_fault_file(const std::string& file);

// Looks up a profile by index or name in the catalog; unknown ones are a usage error.
Result<Profile> find_profile(const Context& ctx, const std::string& name_or_index);

}  // namespace diskcond::dmc
