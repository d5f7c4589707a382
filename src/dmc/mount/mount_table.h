// What the kernel's mount table says about a path, read from /proc/self/mountinfo (never by
// touching the path: a dead daemon's mount answers "Transport endpoint is not connected").
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/result.h"

namespace diskcond::mount {

// Filesystem type of a diskcond mount in /proc/self/mountinfo.
inline constexpr const char* kFuseType = "fuse.diskcond";

// True when the topmost mount on `canonical_path` is a diskcond FUSE mount.
bool is_conditioned_mount(const std::string& canonical_path);

// One line of /proc/self/mountinfo, as far as diskcond cares.
struct MountEntry {
  int id = 0;               // mount ID
  int parent = 0;           // parent's mount ID (the mount it is on; itself absent for the root)
  std::string mount_point;  // unescaped
  std::string type;         // "ext4", "fuse.diskcond", ...
  // A FUSE mount's user_id= (who mounted it) when it lacks allow_other: an ordinary user's own
  // mount, theirs alone. 0 for mounts open to everyone (root's, dmc run's in its namespace) and
  // other types.
  uid_t owner = 0;
};

// The lines of a mountinfo text, in order.
std::vector<MountEntry> parse_mountinfo(const std::string& text);

// The mount that holds `canonical_path`, as path lookup finds it: the deepest mount on the path
// or one of its ancestors that is reachable (from the root through its parents, not hidden by a
// mount on an ancestor of its mount point or on top of its parent) and not covered by a mount on
// top of it. The lines' order says nothing (a container's root may come after its children).
// nullptr when none is.
const MountEntry* holding_mount(const std::vector<MountEntry>& entries,
                                const std::string& canonical_path);

// The mount point of the diskcond mount that holds `canonical_path` (the path itself or the
// conditioned directory it is inside), or "" when the file system holding it is not one.
std::string conditioned_mount_holding(const std::string& canonical_path);

// Whose own the diskcond mount on `mount_point` is (MountEntry::owner): a user's uid for their
// `dmc start` without root, 0 for root's and when there is none.
uid_t conditioned_mount_owner(const std::string& mount_point);

// The type of the file system holding `canonical_path` ("" if unknown).
std::string filesystem_type_holding(const std::string& canonical_path);

// Mount points of every diskcond mount, in mount order (possibly covered by later mounts).
std::vector<std::string> conditioned_mount_points();

// Decodes mountinfo's octal escapes ("\040" -> ' ').
std::string unescape_mountinfo(const std::string& field);

// Absolute path without symlinks, "." or "..". Works on the mount point of a dead FUSE daemon
// (whose own stat fails with ENOTCONN or ECONNABORTED), and on paths below it, by resolving the
// nearest ancestor that answers and appending the rest. Errors name the path.
Result<std::string> canonical_directory_path(const std::string& path);

}  // namespace diskcond::mount
