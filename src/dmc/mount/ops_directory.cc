// Directories: opendir, readdir, readdirplus, releasedir, fsyncdir. A listing costs what ext4
// would read from the disk: the directory's blocks the first time after the kernel took the
// directory, and (readdirplus) the inode-table blocks of entries the kernel did not hold
// (lookup_entry in filesystem.h). Later listings of a directory the kernel holds are free.
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dmc/mount/credentials.h"
#include "dmc/mount/filesystem.h"
#include "dmc/mount/syscall.h"

namespace diskcond::mount {
namespace {

struct DirHandle {
  DIR* dir = nullptr;
  off_t offset = 0;
  dirent* pending = nullptr;  // read but not yet returned (did not fit)
  ~DirHandle() {
    if (dir) closedir(dir);
  }
};

DirHandle& dir_of(fuse_file_info* fi) {
  return *reinterpret_cast<DirHandle*>(static_cast<uintptr_t>(fi->fh));
}

void op_opendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  Filesystem& fs = fs_of(req);
  InodeFd dir = fs.inodes.pin(fs.inodes.get(ino));
  int fd = dir.error();
  if (dir.ok()) {
    // Reopened through /proc/self/fd, as the caller: the kernel checks read permission on the
    // directory itself, as open(2) on the backing filesystem would. (openat(fd, ".") would also
    // ask for search permission on it, refusing an owner with r-- what the backing one allows.)
    const std::string path = proc_fd_path(dir.get());
    CallerCredentials creds(req);
    fd = creds.error()
             ? creds.error()
             : static_cast<int>(check(open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)));
  }
  if (fd < 0) {
    fuse_reply_err(req, -fd);
    return;
  }
  auto handle = std::make_unique<DirHandle>();
  handle->dir = fdopendir(fd);
  if (handle->dir == nullptr) {
    int err = errno;
    close(fd);
    fuse_reply_err(req, err);
    return;
  }
  fi->fh = reinterpret_cast<uintptr_t>(handle.get());
  if (fuse_reply_open(req, fi) == 0) handle.release();
}

bool is_dot_or_dotdot(const char* name) {
  return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

void read_directory(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset, fuse_file_info* fi,
                    bool plus) {
  Filesystem& fs = fs_of(req);
  DirHandle& d = dir_of(fi);
  Ticket reads = fs.conditioner.begin_metadata();
  read_directory_blocks(fs, fs.inodes.get(ino), dirfd(d.dir), reads);
  if (offset != d.offset) {
    seekdir(d.dir, offset);
    d.pending = nullptr;
    d.offset = offset;
  }
  std::vector<char> buf(size);
  size_t used = 0;
  int err = 0;
  std::optional<CallerCredentials> creds;  // once per batch: lookups run as the caller
  if (plus) {
    creds.emplace(req);
    if (creds->error()) {
      creds.reset();
      finish_err(fs, std::move(reads), req, EPERM);
      return;
    }
  }
  for (;;) {
    dirent* entry = d.pending;
    if (entry == nullptr) {
      errno = 0;
      entry = readdir(d.dir);
      if (entry == nullptr) {
        err = errno;
        break;
      }
    }
    d.pending = entry;
    size_t added;
    const off_t next = entry->d_off;
    if (plus) {
      fuse_entry_param e;
      std::memset(&e, 0, sizeof(e));
      // An entry the caller may not look up (a directory it may read but not search), or one
      // that vanished meanwhile, is listed as getdents(2) lists it: name, inode number and type,
      // without attributes (node id 0: the kernel only lists it).
      const bool looked_up = !is_dot_or_dotdot(entry->d_name) &&
                             lookup_entry(fs, dirfd(d.dir), entry->d_name, &e, &reads) == 0;
      if (!looked_up) {
        std::memset(&e, 0, sizeof(e));
        e.attr.st_ino = entry->d_ino;
        e.attr.st_mode = DTTOIF(entry->d_type);
      }
      added = fuse_add_direntry_plus(req, buf.data() + used, size - used, entry->d_name, &e, next);
      if (added > size - used) {
        if (looked_up) forget_inode(fs, e.ino, 1);  // the kernel will not see this entry
        break;
      }
    } else {
      struct stat st;
      std::memset(&st, 0, sizeof(st));
      st.st_ino = entry->d_ino;
      st.st_mode = DTTOIF(entry->d_type);
      added = fuse_add_direntry(req, buf.data() + used, size - used, entry->d_name, &st, next);
      if (added > size - used) break;
    }
    used += added;
    d.pending = nullptr;
    d.offset = next;
  }
  creds.reset();
  if (err != 0 && used == 0) {
    finish_err(fs, std::move(reads), req, err);
    return;
  }
  fs.conditioner.finish(std::move(reads), [req, listing = std::move(buf), used] {
    fuse_reply_buf(req, listing.data(), used);
  });
}

void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset, fuse_file_info* fi) {
  read_directory(req, ino, size, offset, fi, false);
}

void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t offset, fuse_file_info* fi) {
  read_directory(req, ino, size, offset, fi, true);
}

void op_releasedir(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  delete &dir_of(fi);
  fuse_reply_err(req, 0);
}

// Not conditioned in write-through and no-cache modes. In write-back mode it commits the journal
// when that holds a change of the directory, and flushes (Conditioner::fsync).
void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, fuse_file_info* fi) {
  Filesystem& fs = fs_of(req);
  const bool writeback = fs.cache.load() == CacheMode::kWriteBack;
  Ticket ticket = fs.conditioner.begin(Op::kFlush, 0);
  if (writeback) fs.conditioner.fsync_directory(ticket, writeback_file_id(fs.inodes.get(ino)));
  int fd = dirfd(dir_of(fi).dir);
  int r = static_cast<int>(datasync ? check(fdatasync(fd)) : check(fsync(fd)));
  finish_err(fs, std::move(ticket), req, -r);
}

}  // namespace

void add_directory_operations(fuse_lowlevel_ops& ops) {
  ops.opendir = op_opendir;
  ops.readdir = op_readdir;
  ops.readdirplus = op_readdirplus;
  ops.releasedir = op_releasedir;
  ops.fsyncdir = op_fsyncdir;
}

}  // namespace diskcond::mount
