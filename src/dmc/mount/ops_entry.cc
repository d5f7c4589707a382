// Name resolution and attributes: lookup, forget, getattr, setattr, readlink, statfs.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "dmc/mount/credentials.h"
#include "dmc/mount/fault_injection.h"
#include "dmc/mount/filesystem.h"
#include "dmc/mount/syscall.h"

namespace diskcond::mount {
namespace {

// Unpin before the reply: a handler releases its InodeFds before it replies. The caller's next
// request arrives as soon as the reply is out and pins the same directory on another worker; an
// unpin after the reply raced it for the inode table's lock (futex waits and wake-ups on most
// metadata requests, perf; docs/benchmarks.md section 2).

// A lookup the kernel could not answer from its caches. It costs what ext4 would read: the
// directory's blocks if they were not read since the kernel took the directory, and the inode's
// table block if the kernel did not hold the inode (lookup_entry). Replies at their completion.
void op_lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  Filesystem& fs = fs_of(req);
  Ticket reads = fs.conditioner.begin_metadata();
  fuse_entry_param e;
  Inode& dir_inode = fs.inodes.get(parent);
  int r;
  {  // unpinned before the reply (see "Unpin before the reply")
    InodeFd dir = fs.inodes.pin(dir_inode);
    r = dir.error();
    if (r == 0) {
      read_directory_blocks(fs, dir_inode, dir.get(), reads);
      CallerCredentials creds(req);
      r = creds.error() ? creds.error() : lookup_entry(fs, dir.get(), name, &e, &reads);
    }
  }
  if (r == -ENOENT) {
    // Negative entry: the kernel caches the absence for entry_timeout.
    std::memset(&e, 0, sizeof(e));
    e.entry_timeout = fs.entry_timeout_s;
    r = 0;
  }
  finish_entry(fs, std::move(reads), req, -r, e);
}

void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup) {
  forget_inode(fs_of(req), ino, nlookup);
  fuse_reply_none(req);
}

void op_forget_multi(fuse_req_t req, size_t count, fuse_forget_data* forgets) {
  Filesystem& fs = fs_of(req);
  for (size_t i = 0; i < count; ++i) forget_inode(fs, forgets[i].ino, forgets[i].nlookup);
  fuse_reply_none(req);
}

// Never conditioned: the daemon's transit probe (TransitProbe) is a getattr and times its trip.
void op_getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  Filesystem& fs = fs_of(req);
  const bool probe = fs.probe_stamp.is_probe(fuse_req_ctx(req)->pid);
  const Arrival arrival = probe ? fs.conditioner.arrival_now() : Arrival{};
  struct stat st;
  int r;
  {  // unpinned before the reply (see "Unpin before the reply")
    InodeFd fd = fs.inodes.pin(fs.inodes.get(ino));
    r = fd.ok() ? static_cast<int>(
                      check(fstatat(fd.get(), "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)))
                : fd.error();
  }
  if (probe) fs.probe_stamp.handled(arrival, fs.conditioner.now());
  if (r < 0) {
    fuse_reply_err(req, -r);
  } else {
    // A probe's answer is not cached: the probe must not change what the kernel knows (a stat of
    // a dead daemon's mount would otherwise succeed from the cache for attr_timeout).
    fuse_reply_attr(req, &st, probe ? 0.0 : fs.attr_timeout_s);
  }
}

// Applies the requested changes as the caller. Returns 0 or -errno.
int apply_setattr(const Inode& inode, int inode_fd, const struct stat& attr, int to_set,
                  fuse_file_info* fi, SpaceQuota& quota) {
  const int fh = fi ? handle_of(fi).fd : -1;
  const std::string path = proc_fd_path(inode_fd);
  const bool symlink = inode.type == S_IFLNK;
  int r = 0;
  if (to_set & FUSE_SET_ATTR_MODE) {
    if (symlink) return -EOPNOTSUPP;
    r = static_cast<int>(fh >= 0 ? check(fchmod(fh, attr.st_mode))
                                 : check(chmod(path.c_str(), attr.st_mode)));
    if (r < 0) return r;
  }
  // chown(path, -1, -1) reaches us as a setattr that changes nothing (at most ctime). It is
  // repeated on the backing file as the caller, whose own rules then apply (a non-owner's
  // chown(-1, -1) of a setgid file is EPERM there; the FUSE kernel side lets it through).
  constexpr int kNoChange = FUSE_SET_ATTR_CTIME | FUSE_SET_ATTR_KILL_SUID |
                            FUSE_SET_ATTR_KILL_SGID | FUSE_SET_ATTR_KILL_PRIV;
  const bool no_change = (to_set & ~kNoChange) == 0;
  if ((to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID)) || no_change) {
    uid_t uid = (to_set & FUSE_SET_ATTR_UID) ? attr.st_uid : static_cast<uid_t>(-1);
    gid_t gid = (to_set & FUSE_SET_ATTR_GID) ? attr.st_gid : static_cast<gid_t>(-1);
    r = static_cast<int>(
        check(fchownat(inode_fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)));
    if (r < 0) return r;
  }
  if (to_set & FUSE_SET_ATTR_SIZE) {
    if (symlink) return -EINVAL;
    // Growing leaves a hole (nothing to reserve); shrinking gives the quota its blocks back.
    const uint64_t allocated_before = quota.capacity() != 0 ? allocated_bytes(inode_fd) : 0;
    r = static_cast<int>(fh >= 0 ? check(ftruncate(fh, attr.st_size))
                                 : check(truncate(path.c_str(), attr.st_size)));
    if (quota.capacity() != 0) {
      quota.settle(0, static_cast<int64_t>(allocated_bytes(inode_fd)) -
                          static_cast<int64_t>(allocated_before));
    }
    if (r < 0) return r;
  }
  if (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_CTIME)) {
    timespec tv[2];
    tv[0].tv_nsec = tv[1].tv_nsec = UTIME_OMIT;
    if (to_set & FUSE_SET_ATTR_ATIME_NOW) {
      tv[0].tv_nsec = UTIME_NOW;
    } else if (to_set & FUSE_SET_ATTR_ATIME) {
      tv[0] = attr.st_atim;
    }
    if (to_set & FUSE_SET_ATTR_MTIME_NOW) {
      tv[1].tv_nsec = UTIME_NOW;
    } else if (to_set & FUSE_SET_ATTR_MTIME) {
      tv[1] = attr.st_mtim;
    }
    if (tv[0].tv_nsec != UTIME_OMIT || tv[1].tv_nsec != UTIME_OMIT) {
      if (fh >= 0) {
        r = static_cast<int>(check(futimens(fh, tv)));
      } else if (symlink) {
        // The symlink's own times (utimensat AT_SYMLINK_NOFOLLOW), through its O_PATH descriptor.
        r = static_cast<int>(check(utimensat(inode_fd, "", tv, AT_EMPTY_PATH)));
      } else {
        r = static_cast<int>(check(utimensat(AT_FDCWD, path.c_str(), tv, 0)));
      }
      if (r < 0) return r;
    }
  }
  return 0;
}

// The kernel clears setuid/setgid bits itself when someone other than the owner writes to or
// truncates such a file, and sends that to us as a mode change; the writer may not chmod the
// file, so it is applied with the daemon's own rights. A chmod from user space never looks like
// this to us: with default_permissions the kernel lets only the owner (or root) chmod.
bool is_privilege_kill(int inode_fd, const struct stat& attr, int to_set) {
  const int ignored = FUSE_SET_ATTR_CTIME | FUSE_SET_ATTR_KILL_SUID | FUSE_SET_ATTR_KILL_SGID;
  if ((to_set & ~ignored) != FUSE_SET_ATTR_MODE) return false;
  struct stat now;
  if (fstatat(inode_fd, "", &now, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0) return false;
  const mode_t kill = S_ISUID | S_ISGID;
  return (now.st_mode & kill) != 0 && (attr.st_mode & 07777) == (now.st_mode & 07777 & ~kill);
}

// With FUSE_HANDLE_KILLPRIV_V2 (killpriv_v2.h) the same kill comes as the kernel's
// FATTR_KILL_SUIDGID with no mode at all, which libfuse 3.14 drops: a setattr of nothing (a
// chown(-1, -1) still carries its ctime). The file system is to clear setuid, and setgid when
// the group may execute (the kernel's rule), itself. The kernel has already decided that the
// caller must lose them, and clearing them never grants a right, so it is done with the daemon's
// own rights too. Returns the mode to set, or -1 when the request is not such a kill (or there
// is nothing to clear).
mode_t killpriv_v2_mode(const Filesystem& fs, int inode_fd, int to_set) {
  if (to_set != 0 || !fs.killpriv.enabled()) return static_cast<mode_t>(-1);
  struct stat now;
  if (fstatat(inode_fd, "", &now, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0 ||
      !S_ISREG(now.st_mode)) {
    return static_cast<mode_t>(-1);
  }
  mode_t mode = now.st_mode & 07777 & ~S_ISUID;
  if ((mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP)) mode &= ~S_ISGID;
  return mode == (now.st_mode & 07777) ? static_cast<mode_t>(-1) : mode;
}

void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info* fi) {
  Filesystem& fs = fs_of(req);
  Inode& inode = fs.inodes.get(ino);
  if (const FaultDecision fault = fault_at_inode(fs, req, FaultOp::kSetattr, inode)) {
    fuse_reply_err(req, fault.error);
    return;
  }
  Ticket ticket = begin_metadata_change(fs, inode);
  // A crashable mount does not undo a size change: the file's state now is kept by a crash.
  if (fs.crash != nullptr && (to_set & FUSE_SET_ATTR_SIZE) != 0)
    fs.crash->keep(writeback_file_id(inode));
  struct stat st;
  InodeFd fd = fs.inodes.pin(inode);  // released before the reply (see "Unpin before the reply")
  int r = fd.error();
  if (r != 0) {
    // reply below
  } else if (is_privilege_kill(fd.get(), *attr, to_set)) {
    r = apply_setattr(inode, fd.get(), *attr, to_set, fi, fs.quota);  // as root, like ATTR_FORCE
  } else if (const mode_t killed = killpriv_v2_mode(fs, fd.get(), to_set);
             killed != static_cast<mode_t>(-1)) {
    struct stat mode_only = *attr;
    mode_only.st_mode = killed;
    r = apply_setattr(inode, fd.get(), mode_only, FUSE_SET_ATTR_MODE, fi, fs.quota);  // as above
  } else {
    CallerCredentials creds(req);
    r = creds.error() ? creds.error() : apply_setattr(inode, fd.get(), *attr, to_set, fi, fs.quota);
  }
  if (r == 0) {
    r = static_cast<int>(check(fstatat(fd.get(), "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)));
  }
  fd = InodeFd();
  const double timeout = fs.attr_timeout_s;
  fs.conditioner.finish(std::move(ticket), [req, r, st, timeout] {
    if (r < 0) {
      fuse_reply_err(req, -r);
    } else {
      fuse_reply_attr(req, &st, timeout);
    }
  });
}

void op_readlink(fuse_req_t req, fuse_ino_t ino) {
  char buf[PATH_MAX + 1];
  Filesystem& fs = fs_of(req);
  InodeFd fd = fs.inodes.pin(fs.inodes.get(ino));
  ssize_t n = fd.ok() ? readlinkat(fd.get(), "", buf, sizeof(buf)) : (errno = -fd.error(), -1);
  if (n < 0) {
    fuse_reply_err(req, errno);
  } else if (n >= static_cast<ssize_t>(sizeof(buf))) {
    fuse_reply_err(req, ENAMETOOLONG);
  } else {
    buf[n] = '\0';
    fuse_reply_readlink(req, buf);
  }
}

void op_statfs(fuse_req_t req, fuse_ino_t ino) {
  struct statvfs sv;
  Filesystem& fs = fs_of(req);
  fs.inodes.finish_closes();  // removed files' blocks count as free, as they would without a mount
  InodeFd fd = fs.inodes.pin(fs.inodes.get(ino));
  if (!fd.ok()) {
    fuse_reply_err(req, -fd.error());
  } else if (fstatvfs(fd.get(), &sv) < 0) {
    fuse_reply_err(req, errno);
  } else {
    fs.quota.adjust(sv);
    fuse_reply_statfs(req, &sv);
  }
}

}  // namespace

void add_entry_operations(fuse_lowlevel_ops& ops) {
  ops.lookup = op_lookup;
  ops.forget = op_forget;
  ops.forget_multi = op_forget_multi;
  ops.getattr = op_getattr;
  ops.setattr = op_setattr;
  ops.readlink = op_readlink;
  ops.statfs = op_statfs;
}

}  // namespace diskcond::mount
