// Changes to the directory tree: mknod, mkdir, symlink, link, unlink, rmdir, rename.
// Each costs one metadata write in the model (at the region of the directory it changes) and
// runs as the caller, so ownership and permissions are the backing filesystem's.
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "dmc/mount/credentials.h"
#include "dmc/mount/fault_injection.h"
#include "dmc/mount/filesystem.h"
#include "dmc/mount/syscall.h"

namespace diskcond::mount {
namespace {

// Every handler here releases its pins (InodeFd) before it replies: the caller's next request
// comes as soon as the reply is out and pins the same directory on another worker; it used to meet
// the unpin of this one on the inode table's lock (futex waits and wake-ups, perf;
// docs/benchmarks.md section 2).

// Runs `make(dir_fd)` (which creates `name` in the parent and returns 0 or -errno) as the
// caller, looks the new entry up and replies with it at the metadata write's completion.
// `held`: a pin `make` uses (released with the parent's, before the reply).
template <class Make>
void create_entry(fuse_req_t req, fuse_ino_t parent_id, const char* name, Make make,
                  InodeFd held = {}) {
  Filesystem& fs = fs_of(req);
  Inode& parent = fs.inodes.get(parent_id);
  Ticket ticket = begin_metadata_change(fs, parent);
  fuse_entry_param e;
  std::memset(&e, 0, sizeof(e));
  int r;
  {
    InodeFd dir = fs.inodes.pin(parent);  // before the switch: reopening needs root
    r = dir.error();
    if (r == 0) {
      CallerCredentials creds(req);
      r = creds.error();
      if (r == 0) r = make(dir.get());
      if (r == 0) r = lookup_entry(fs, dir.get(), name, &e, nullptr);
    }
    if (r == 0) {
      journal_new_entry(fs, ticket, e.ino, dir.get(), name);
      fs.quota.settle(0, static_cast<int64_t>(e.attr.st_blocks) * 512);  // a directory's block
    }
  }
  held = InodeFd();
  finish_entry(fs, std::move(ticket), req, -r, e);
}

// Runs `change(dir_fd)` (0 or -errno) as the caller; replies at the metadata write's completion.
// An error rule for `op` on `name` in `dir_id` fails the request at once: true when it did.
bool refused_by_rule(fuse_req_t req, FaultOp op, fuse_ino_t dir_id, const char* name) {
  Filesystem& fs = fs_of(req);
  if (!fs.faults.wants(op)) return false;
  const FaultDecision fault = fault_at_entry(fs, req, op, fs.inodes.get(dir_id), name);
  if (!fault) return false;
  fuse_reply_err(req, fault.error);
  return true;
}

// `undo`: a crashable mount's record of the change (journaled with it), or 0. `held`: a pin
// `change` uses (released with the directory's, before the reply).
template <class Change>
void change_entry(fuse_req_t req, fuse_ino_t dir_id, Change change, uint64_t undo = 0,
                  InodeFd held = {}) {
  Filesystem& fs = fs_of(req);
  Inode& dir = fs.inodes.get(dir_id);
  Ticket ticket = begin_metadata_change(fs, dir, undo);
  int r;
  {
    InodeFd fd = fs.inodes.pin(dir);
    r = fd.error();
    if (r == 0) {
      CallerCredentials creds(req);
      r = creds.error();
      if (r == 0) r = change(fd.get());
    }
  }
  held = InodeFd();
  finish_err(fs, std::move(ticket), req, -r);
}

void op_mknod(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev) {
  create_entry(req, parent, name,
               [&](int dir) { return static_cast<int>(check(mknodat(dir, name, mode, rdev))); });
}

void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode) {
  // A directory takes a block; on a full pretend disk there is none (create_entry counts it).
  constexpr uint64_t kDirectoryBlock = 4096;
  if (refused_by_rule(req, FaultOp::kMkdir, parent, name)) return;
  SpaceQuota& quota = fs_of(req).quota;
  if (!quota.reserve(kDirectoryBlock)) {
    fuse_reply_err(req, ENOSPC);
    return;
  }
  create_entry(req, parent, name,
               [&](int dir) { return static_cast<int>(check(mkdirat(dir, name, mode))); });
  quota.settle(kDirectoryBlock, 0);
}

void op_symlink(fuse_req_t req, const char* link, fuse_ino_t parent, const char* name) {
  create_entry(req, parent, name,
               [&](int dir) { return static_cast<int>(check(symlinkat(link, dir, name))); });
}

void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char* newname) {
  Filesystem& fs = fs_of(req);
  InodeFd target = fs.inodes.pin(fs.inodes.get(ino));
  const int target_fd = target.ok() ? target.get() : target.error();
  create_entry(
      req, newparent, newname,
      [&](int dir) {
        if (target_fd < 0) return target_fd;
        // Through /proc rather than AT_EMPTY_PATH, which would need CAP_DAC_READ_SEARCH.
        const std::string path = proc_fd_path(target_fd);
        return static_cast<int>(
            check(linkat(AT_FDCWD, path.c_str(), dir, newname, AT_SYMLINK_FOLLOW)));
      },
      std::move(target));
}

// unlinkat(dir, name, flags), giving the pretend disk's quota back what the removal frees.
int remove_entry(Filesystem& fs, int dir, const char* name, int flags) {
  const uint64_t freed = fs.quota.capacity() != 0 ? freed_by_removing(dir, name) : 0;
  const int r = static_cast<int>(check(unlinkat(dir, name, flags)));
  if (r == 0 && freed != 0) fs.quota.settle(0, -static_cast<int64_t>(freed));
  return r;
}

// A crashable mount in write-back mode (journaled changes) records what a crash must undo:
// the token for the change's journal entry, or 0. As the daemon, before the change.
bool records_changes(Filesystem& fs) {
  return fs.crash != nullptr && fs.cache.load() == CacheMode::kWriteBack;
}
uint64_t record_removal(Filesystem& fs, fuse_ino_t dir_id, const char* name) {
  if (!records_changes(fs)) return 0;
  InodeFd dir = fs.inodes.pin(fs.inodes.get(dir_id));
  return dir.ok() ? fs.crash->before_remove(dir.get(), name, fs.conditioner.now()) : 0;
}
uint64_t record_rename(Filesystem& fs, fuse_ino_t from_id, const char* name, fuse_ino_t to_id,
                       const char* to_name, unsigned int flags) {
  if (!records_changes(fs) || (flags & RENAME_EXCHANGE) != 0) return 0;  // exchanges are kept
  InodeFd from = fs.inodes.pin(fs.inodes.get(from_id));
  InodeFd to = fs.inodes.pin(fs.inodes.get(to_id));
  return from.ok() && to.ok()
             ? fs.crash->before_rename(from.get(), name, to.get(), to_name, fs.conditioner.now())
             : 0;
}

void op_unlink(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (refused_by_rule(req, FaultOp::kUnlink, parent, name)) return;
  const uint64_t undo = record_removal(fs_of(req), parent, name);
  change_entry(
      req, parent, [&](int dir) { return remove_entry(fs_of(req), dir, name, 0); }, undo);
}

void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char* name) {
  if (refused_by_rule(req, FaultOp::kRmdir, parent, name)) return;
  const uint64_t undo = record_removal(fs_of(req), parent, name);
  change_entry(
      req, parent, [&](int dir) { return remove_entry(fs_of(req), dir, name, AT_REMOVEDIR); },
      undo);
}

void op_rename(fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t newparent,
               const char* newname, unsigned int flags) {
  if (refused_by_rule(req, FaultOp::kRename, parent, name)) return;
  Filesystem& fs = fs_of(req);
  const uint64_t undo = record_rename(fs, parent, name, newparent, newname, flags);
  InodeFd to = fs.inodes.pin(fs.inodes.get(newparent));
  const int to_fd = to.ok() ? to.get() : to.error();
  change_entry(
      req, parent,
      [&](int from) {
        if (to_fd < 0) return to_fd;
        // A rename over an existing name removes that file (not when exchanging or refusing to).
        const bool replaces =
            fs.quota.capacity() != 0 && (flags & (RENAME_EXCHANGE | RENAME_NOREPLACE)) == 0;
        const uint64_t freed = replaces ? freed_by_removing(to_fd, newname) : 0;
        const int r = static_cast<int>(check(renameat2(from, name, to_fd, newname, flags)));
        if (r == 0 && freed != 0) fs.quota.settle(0, -static_cast<int64_t>(freed));
        return r;
      },
      undo, std::move(to));
}

}  // namespace

void add_namespace_operations(fuse_lowlevel_ops& ops) {
  ops.mknod = op_mknod;
  ops.mkdir = op_mkdir;
  ops.symlink = op_symlink;
  ops.link = op_link;
  ops.unlink = op_unlink;
  ops.rmdir = op_rmdir;
  ops.rename = op_rename;
}

}  // namespace diskcond::mount
