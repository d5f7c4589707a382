// Small steps several dmc commands share.
#pragma once

#include <optional>
#include <string>

#include "core/profile.h"
#include "core/result.h"
#include "dmc/cli/context.h"
#include "dmc/cli/exit_code.h"
#include "dmc/cli/settings_store.h"

namespace diskcond::dmc {

// The one line for a mount whose daemon died, with the fix.
std::string stale_mount_message(const std::string& mount);

// Where a mount stands before a command changes it.
struct MountState {
  StoreLock lock;                    // held until the command is done
  MountStatus status;                // from the mount machinery
  std::optional<StoredMount> stored; // from the settings store

  bool running() const { return status.mounted && status.daemon_alive; }
  bool stale() const { return status.mounted && !status.daemon_alive; }
};

// Locks the store, then queries both; errors come back as the Outcome to return (kFailed). On success `outcome` is
// success() and the state is filled in.
MountState read_mount_state(Context& ctx, const std::string& mount, Outcome& outcome);

// Looks up a profile by index or name in the catalog; unknown ones are a usage error.
Result<Profile> find_profile(const Context& ctx, const std::string& name_or_index);

}  // namespace diskcond::dmc
