// Thin system-call helpers for the mount machinery: every wrapper returns a value >= 0 or -errno,
// so errno is read in exactly one place and FUSE handlers reply with fuse_reply_err(req, -r).
#pragma once

#include <cerrno>
#include <string>

namespace diskcond::mount {

// r < 0 -> -errno, else r. Call right after the system call.
inline long check(long r) {
  return r < 0 ? -errno : r;
}

// "/proc/self/fd/<fd>": reopens an O_PATH descriptor's file (the magic link follows it).
std::string proc_fd_path(int fd);

}  // namespace diskcond::mount
