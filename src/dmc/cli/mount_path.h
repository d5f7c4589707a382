// The directory a dmc command names, as the canonical absolute path every layer uses as its key
// (the settings store, MountControl).
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace diskcond::dmc {

// Accepts an existing directory (symlinks resolved), or the mount point of a conditioned mount
// whose daemon died (stat fails with ENOTCONN), so `status` and `stop` can still name it.
// Errors are one line: "no such directory '<arg>'", "'<arg>' is not a directory", ...
Result<std::string> resolve_mount_dir(std::string_view arg);

}  // namespace diskcond::dmc
