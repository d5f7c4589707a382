// A private mount namespace for `dmc run`: a conditioned mount made in it is seen by the process
// that made it and by its children, and by nothing else on the machine.
//
// As root: unshare(CLONE_NEWNS), then / and every mount below it made a slave of the host's
// (mounts the host makes later still appear inside; none made inside ever leave). As an ordinary
// user: a user namespace too, mapping only the user's own uid and gid to themselves, so files keep
// their owners (every other uid and gid shows as the overflow id, 65534); setgroups(2) is denied,
// as the kernel requires for such a map. Kernels from 4.18 allow FUSE mounts in such a namespace,
// and nothing setuid (fusermount3) or sudo is involved.
#pragma once

#include <sys/types.h>

#include <string>

#include "core/result.h"

namespace diskcond::mount {

// What the machine offers for a private conditioned mount, as far as dmc can tell beforehand.
struct NamespaceSupport {
  bool as_root = false;                // geteuid() == 0: no user namespace needed
  int fuse_device_errno = 0;           // access("/dev/fuse", R_OK | W_OK): 0, ENOENT, EACCES, ...
  mode_t fuse_device_mode = 0;         // its permission bits, when it exists
  std::string kernel_release;          // uname -r: "6.18.4-..."
  long max_user_namespaces = -1;       // /proc/sys/user/max_user_namespaces; -1: unknown
  int unprivileged_userns_clone = -1;  // /proc/sys/kernel/unprivileged_userns_clone (Debian's
                                       // older kernels); -1: absent
  int apparmor_restricts_userns = -1;  // /proc/sys/kernel/apparmor_restrict_unprivileged_userns
                                       // (Ubuntu 23.10+); -1: absent
};

// Reads the above from this machine. Changes nothing.
NamespaceSupport probe_namespace_support();

// "" when a private conditioned mount can be tried; else one line saying what is missing (no
// /dev/fuse, /dev/fuse not accessible, user namespaces disabled, a kernel older than 4.18) and
// what to enable. Pure. (AppArmor's restriction is no reason: a profile may allow dmc; when the
// namespace then lacks capabilities, enter_private_mount_namespace's error says so.)
std::string private_mount_problem(const NamespaceSupport& support);

// The /dev/fuse part of it: "" when the caller may open /dev/fuse, else the line that says what
// to do: absent (ENOENT), its mode (EACCES), or a device cgroup that does not allow it (EPERM). An
// ordinary user's `dmc start` needs it too: libfuse 3.14 opens /dev/fuse itself before it asks
// fusermount3 to mount. Pure.
std::string fuse_device_problem(const NamespaceSupport& support);

// True when `release` ("6.18.44-fc", "4.18.0") is at least major.minor. False when unparsable.
bool kernel_at_least(const std::string& release, int major, int minor);

// Moves the calling process into a new mount namespace (and, unless `support.as_root`, a new
// user namespace mapping its own uid and gid) with / made recursively a slave. Children forked
// afterwards share it. REQUIRES: single-threaded (the kernel refuses otherwise). On error
// (one line saying what to enable), the process may be in a new, useless namespace of its own:
// nothing outside it changed.
Status enter_private_mount_namespace(const NamespaceSupport& support);

}  // namespace diskcond::mount
