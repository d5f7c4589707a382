// Extended attributes, as the caller (trusted.* and security.capability need capabilities a
// non-root caller does not get). Reached through /proc/self/fd; symlinks have none here.
#include <sys/xattr.h>

#include <string>
#include <vector>

#include "dmc/mount/credentials.h"
#include "dmc/mount/filesystem.h"
#include "dmc/mount/syscall.h"

namespace diskcond::mount {
namespace {

// Runs `call(path)` as the caller on the file of `ino`; returns its result or -errno.
template <class Call>
long as_caller(fuse_req_t req, fuse_ino_t ino, Call call) {
  Filesystem& fs = fs_of(req);
  Inode& inode = fs.inodes.get(ino);
  if (inode.type == S_IFLNK) return -EOPNOTSUPP;
  InodeFd fd = fs.inodes.pin(inode);
  if (!fd.ok()) return fd.error();
  const std::string path = proc_fd_path(fd.get());
  CallerCredentials creds(req);
  if (creds.error()) return creds.error();
  return check(call(path.c_str()));
}

// getxattr/listxattr protocol: size 0 asks for the size, else the data.
void reply_sized(fuse_req_t req, size_t size, long r, const std::vector<char>& buf) {
  if (r < 0) {
    fuse_reply_err(req, static_cast<int>(-r));
  } else if (size == 0) {
    fuse_reply_xattr(req, static_cast<size_t>(r));
  } else {
    fuse_reply_buf(req, buf.data(), static_cast<size_t>(r));
  }
}

void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
  std::vector<char> buf(size);
  long r = as_caller(req, ino, [&](const char* path) {
    return getxattr(path, name, size ? buf.data() : nullptr, size);
  });
  reply_sized(req, size, r, buf);
}

void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size) {
  std::vector<char> buf(size);
  long r = as_caller(req, ino, [&](const char* path) {
    return listxattr(path, size ? buf.data() : nullptr, size);
  });
  reply_sized(req, size, r, buf);
}

void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char* name, const char* value, size_t size,
                 int flags) {
  Filesystem& fs = fs_of(req);
  Ticket ticket = begin_metadata_change(fs, fs.inodes.get(ino));
  long r = as_caller(req, ino,
                     [&](const char* path) { return setxattr(path, name, value, size, flags); });
  finish_err(fs, std::move(ticket), req, static_cast<int>(-r));
}

void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char* name) {
  Filesystem& fs = fs_of(req);
  Ticket ticket = begin_metadata_change(fs, fs.inodes.get(ino));
  long r = as_caller(req, ino, [&](const char* path) { return removexattr(path, name); });
  finish_err(fs, std::move(ticket), req, static_cast<int>(-r));
}

}  // namespace

void add_xattr_operations(fuse_lowlevel_ops& ops) {
  ops.getxattr = op_getxattr;
  ops.listxattr = op_listxattr;
  ops.setxattr = op_setxattr;
  ops.removexattr = op_removexattr;
}

}  // namespace diskcond::mount
