// Changes to the directory tree: mknod, mkdir, symlink, link, unlink, rmdir, rename.
// Each costs one metadata write in the model (at the region of the directory it changes) and
// runs as the caller, so ownership and permissions are the backing filesystem's.
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "dmc/mount/credentials.h"
#include "dmc/mount/filesystem.h"
#include "dmc/mount/syscall.h"

namespace diskcond::mount {
namespace {

// Runs `make(dir_fd)` (which creates `name` in the parent and returns 0 or -errno) as the
// caller, looks the new entry up and replies with it at the metadata write's completion.
template <class Make>
void create_entry(fuse_req_t req, fuse_ino_t parent_id, const char* name, Make make) {
  Filesystem& fs = fs_of(req);
  Inode& parent = fs.inodes.get(parent_id);
  Ticket ticket = begin_metadata_change(fs, parent);
  fuse_entry_param e;
  std::memset(&e, 0, sizeof(e));
  InodeFd dir = fs.inodes.pin(parent);  // before the switch: reopening needs root
  int r = dir.error();
  if (r == 0) {
    CallerCredentials creds(req);
    r = creds.error();
    if (r == 0) r = make(dir.get());
    if (r == 0) r = lookup_entry(fs, dir.get(), name, &e, nullptr);
  }
  if (r == 0) journal_new_entry(fs, ticket, e.ino);
  finish_entry(fs, std::move(ticket), req, -r, e);
}

// Runs `change(dir_fd)` (0 or -errno) as the caller; replies at the metadata write's completion.
template <class Change>
void change_entry(fuse_req_t req, fuse_ino_t dir_id, Change change) {
  Filesystem& fs = fs_of(req);
  Inode& dir = fs.inodes.get(dir_id);
  Ticket ticket = begin_metadata_change(fs, dir);
  InodeFd fd = fs.inodes.pin(dir);
  int r = fd.error();
  if (r == 0) {
    CallerCredentials creds(req);
    r = creds.error();
    if (r == 0) r = change(fd.get());
  }
  finish_err(fs, std::move(ticket), req, -r);
}

void op_mknod(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev) {
  create_entry(req, parent, name,
               [&](int dir) { return static_cast<int>(check(mknodat(dir, name, mode, rdev))); });
}

void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode) {
  create_entry(req, parent, name,
               [&](int dir) { return static_cast<int>(check(mkdirat(dir, name, mode))); });
}

void op_symlink(fuse_req_t req, const char* link, fuse_ino_t parent, const char* name) {
  create_entry(req, parent, name,
               [&](int dir) { return static_cast<int>(check(symlinkat(link, dir, name))); });
}

void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char* newname) {
  Filesystem& fs = fs_of(req);
  InodeFd target = fs.inodes.pin(fs.inodes.get(ino));
  create_entry(req, newparent, newname, [&](int dir) {
    if (!target.ok()) return target.error();
    // Through /proc rather than AT_EMPTY_PATH, which would need CAP_DAC_READ_SEARCH.
    const std::string path = proc_fd_path(target.get());
    return static_cast<int>(check(linkat(AT_FDCWD, path.c_str(), dir, newname, AT_SYMLINK_FOLLOW)));
  });
}

void op_unlink(fuse_req_t req, fuse_ino_t parent, const char* name) {
  change_entry(req, parent,
               [&](int dir) { return static_cast<int>(check(unlinkat(dir, name, 0))); });
}

void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char* name) {
  change_entry(req, parent,
               [&](int dir) { return static_cast<int>(check(unlinkat(dir, name, AT_REMOVEDIR))); });
}

void op_rename(fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t newparent,
               const char* newname, unsigned int flags) {
  Filesystem& fs = fs_of(req);
  InodeFd to = fs.inodes.pin(fs.inodes.get(newparent));
  change_entry(req, parent, [&](int from) {
    if (!to.ok()) return to.error();
    return static_cast<int>(check(renameat2(from, name, to.get(), newname, flags)));
  });
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
