// Where the handlers ask the mount's fault rules (core/fault_rules.h, Filesystem::faults) about a
// request. Each helper names the request's path relative to the conditioned directory and asks
// FaultRules::decide() (at wall time); the handler applies the answer before any backing
// operation and before the model: an error (a bad sector's EIO too) is replied at once (nothing
// reaches the backing file or the model, so it costs no pretend-disk time); a short read or
// write does only the first `length` bytes and is timed by the model for those; a corrupted read
// is read and timed as any other and only its reply buffer is altered (corrupt_reply), never
// the backing file; a lost write is timed by the model and acknowledged in full, and its bytes
// are never written (nor is the quota charged). Nothing but these decisions changes what a
// request does: with no rule firing, the handler's path is the one without rules.
//
// Cost without a rule for the operation: one relaxed atomic load (FaultRules::wants), inline. With
// one, a readlink of the file's /proc/self/fd entry and the rules' mutex.
#pragma once

#include "core/fault_rules.h"
#include "dmc/mount/filesystem.h"

namespace diskcond::mount {

// `fd` (any descriptor of the file, O_PATH too) as a path relative to the conditioned directory:
// "a/b.db", "." for the directory itself; the kernel's path when it is not below it.
std::string relative_path(const Filesystem& fs, int fd);

// The out-of-line halves; use the inline ones below.
FaultDecision decide_fault_at_fd(Filesystem& fs, fuse_req_t req, FaultOp op, int fd,
                                 uint64_t offset, uint64_t length);
FaultDecision decide_fault_at_inode(Filesystem& fs, fuse_req_t req, FaultOp op, Inode& inode);
FaultDecision decide_fault_at_entry(Filesystem& fs, fuse_req_t req, FaultOp op, Inode& parent,
                                    const char* name);

// `req` is the request asked about: its process is logged with a fault (FaultRules::log).
// The fault for `op` on the open file `fd`, bytes [offset, offset + length) for read and write.
inline FaultDecision fault_at_fd(Filesystem& fs, fuse_req_t req, FaultOp op, int fd,
                                 uint64_t offset = 0, uint64_t length = 0) {
  if (!fs.faults.wants(op)) return {};
  return decide_fault_at_fd(fs, req, op, fd, offset, length);
}
// ... on `inode` (open, setattr).
inline FaultDecision fault_at_inode(Filesystem& fs, fuse_req_t req, FaultOp op, Inode& inode) {
  if (!fs.faults.wants(op)) return {};
  return decide_fault_at_inode(fs, req, op, inode);
}
// ... on the entry `name` of the directory `parent` (create, mkdir, unlink, rmdir, rename's
// source).
inline FaultDecision fault_at_entry(Filesystem& fs, fuse_req_t req, FaultOp op, Inode& parent,
                                    const char* name) {
  if (!fs.faults.wants(op)) return {};
  return decide_fault_at_entry(fs, req, op, parent, name);
}

}  // namespace diskcond::mount
