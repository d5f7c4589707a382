// Unmounting an ordinary user's own FUSE mount, which umount2 refuses them: through the setuid
// fusermount3 of the fuse3 package, as libfuse itself mounts it for them.
#pragma once

#include <string>

namespace diskcond::mount {

// The fusermount3 binary (/usr/bin or /bin), or "" when neither exists.
std::string fusermount_path();

// `fusermount3 -u [-z] -- <mount_point>`: 0 when it is unmounted; -EBUSY when files under it
// are in use (without `lazy`); -ENOENT when fusermount3 is missing; else -EPERM (fusermount3
// refused: not the caller's mount). Safe to call from a multi-threaded process: the child only
// execs.
int fusermount_unmount(const std::string& mount_point, bool lazy);

}  // namespace diskcond::mount
