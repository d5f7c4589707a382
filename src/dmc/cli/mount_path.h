// The directory a dmc command names, as the canonical absolute path every layer uses as its key
// (the settings store, MountControl).
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace diskcond::dmc {

// Accepts an existing directory (symlinks resolved), or the mount point of a conditioned mount
// whose daemon died, or a path below it (stat fails with ENOTCONN), so `status` and `stop` can
// still name it. Errors are one line: "no such directory '<arg>'", "'<arg>' is not a directory",
// ...
Result<std::string> resolve_mount_dir(std::string_view arg);

// True when nothing exists at `arg` (stat fails with ENOENT): a directory that was deleted.
bool path_is_missing(std::string_view arg);

// The canonical path `arg` had while it existed, for finding what is stored about a deleted
// directory: its nearest existing ancestor resolved, the rest appended (lexically normalized).
Result<std::string> resolve_missing_dir(std::string_view arg);

// realpath(3) of `path`; the error is one line: "cannot resolve '<path>': <reason>".
Result<std::string> real_path(const std::string& path);

}  // namespace diskcond::dmc
