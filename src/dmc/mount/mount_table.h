// What the kernel's mount table says about a path, read from /proc/self/mountinfo (never by
// touching the path: a dead daemon's mount answers "Transport endpoint is not connected").
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace diskcond::mount {

// Filesystem type of a diskcond mount in /proc/self/mountinfo.
inline constexpr const char* kFuseType = "fuse.diskcond";

// True when the topmost mount on `canonical_path` is a diskcond FUSE mount.
bool is_conditioned_mount(const std::string& canonical_path);

// Mount points of every diskcond mount, in mount order (possibly covered by later mounts).
std::vector<std::string> conditioned_mount_points();

// Decodes mountinfo's octal escapes ("\040" -> ' ').
std::string unescape_mountinfo(const std::string& field);

// Absolute path without symlinks, "." or "..". Works on the mount point of a dead FUSE daemon
// (whose own stat fails with ENOTCONN or ECONNABORTED) by resolving its parent. Errors name the
// path.
Result<std::string> canonical_directory_path(const std::string& path);

}  // namespace diskcond::mount
