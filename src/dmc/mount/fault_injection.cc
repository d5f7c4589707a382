#include "dmc/mount/fault_injection.h"

#include <limits.h>
#include <unistd.h>

#include <string_view>

#include "dmc/mount/syscall.h"

namespace diskcond::mount {

std::string relative_path(const Filesystem& fs, int fd) {
  char buf[PATH_MAX];
  const ssize_t n = readlink(proc_fd_path(fd).c_str(), buf, sizeof(buf));
  if (n <= 0) return "";
  std::string_view path(buf, static_cast<size_t>(n));
  constexpr std::string_view kDeleted = " (deleted)";
  if (path.size() > kDeleted.size() && path.substr(path.size() - kDeleted.size()) == kDeleted)
    path.remove_suffix(kDeleted.size());
  const std::string_view root = fs.mount_point;
  if (path == root) return ".";
  if (!root.empty() && path.size() > root.size() && path.substr(0, root.size()) == root &&
      path[root.size()] == '/') {
    return std::string(path.substr(root.size() + 1));
  }
  return std::string(path);
}

namespace {

int32_t pid_of(fuse_req_t req) {
  const fuse_ctx* ctx = req ? fuse_req_ctx(req) : nullptr;
  return ctx ? static_cast<int32_t>(ctx->pid) : 0;
}

}  // namespace

FaultDecision decide_fault_at_fd(Filesystem& fs, fuse_req_t req, FaultOp op, int fd,
                                 uint64_t offset, uint64_t length) {
  return fs.faults.decide(op, relative_path(fs, fd), offset, length, fs.conditioner.wall_now(),
                          pid_of(req));
}

FaultDecision decide_fault_at_inode(Filesystem& fs, fuse_req_t req, FaultOp op, Inode& inode) {
  InodeFd fd = fs.inodes.pin(inode);
  if (!fd.ok()) return {};  // the handler meets the same error itself
  return decide_fault_at_fd(fs, req, op, fd.get(), 0, 0);
}

FaultDecision decide_fault_at_entry(Filesystem& fs, fuse_req_t req, FaultOp op, Inode& parent,
                                    const char* name) {
  InodeFd dir = fs.inodes.pin(parent);
  if (!dir.ok()) return {};
  std::string path = relative_path(fs, dir.get());
  path = path == "." ? std::string(name) : path + "/" + name;
  return fs.faults.decide(op, path, 0, 0, fs.conditioner.wall_now(), pid_of(req));
}

}  // namespace diskcond::mount
