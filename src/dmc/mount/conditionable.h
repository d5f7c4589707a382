// Which directories dmc refuses to condition, decided before anything changes.
//
// Refused: "/" (one mount over the whole system, dmc's own files included, conditions nothing
// it can report on); directories on a pseudo file system, which has no disk behind it (proc,
// sysfs, devtmpfs, devpts, cgroup, debugfs, ... by the directory's statfs f_type; devtmpfs, which
// shares tmpfs's magic, by its mount type); and dmc's own directories (the settings store, the
// run directory) and their parents: a mount over them would hide the files dmc itself needs,
// and `dmc stop` would wait on its own lock file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace diskcond::mount {

// The name of a pseudo file system's statfs f_type ("proc", "sysfs", ...), or "" for any other.
std::string_view pseudo_filesystem_name(int64_t f_type);

// REQUIRES: `canonical_path` is an existing directory's canonical path. `own_dirs`: dmc's own
// directories (they need not exist). Errors are one line naming the path and the reason.
Status check_conditionable(const std::string& canonical_path,
                           const std::vector<std::string>& own_dirs);

}  // namespace diskcond::mount
