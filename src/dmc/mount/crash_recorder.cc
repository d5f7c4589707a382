#include "dmc/mount/crash_recorder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <tuple>
#include <utility>

#include "dmc/mount/syscall.h"
#include "posix/files.h"

namespace diskcond::mount {
namespace {

// Where a descriptor's file is now, for the report ("(deleted)" when it was unlinked).
std::string path_of(int fd) {
  char buf[4096];
  const ssize_t n = readlink(proc_fd_path(fd).c_str(), buf, sizeof(buf) - 1);
  return n < 0 ? "?" : std::string(buf, static_cast<size_t>(n));
}

void add_path(CrashReport& report, std::string path) {
  if (report.paths.size() < kMaxCrashPaths) report.paths.push_back(std::move(path));
}

bool is_free(int dir_fd, const std::string& name) {
  struct stat st;
  return fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
}

// A regular file's bytes from `from` (reopened through /proc) into the new file `to`.
bool copy_bytes(int from_path_fd, int to) {
  const int from = open(proc_fd_path(from_path_fd).c_str(), O_RDONLY | O_CLOEXEC);
  if (from < 0) return false;
  char buf[64 * 1024];
  off_t at = 0;
  bool ok = true;
  for (;;) {
    const ssize_t n = pread(from, buf, sizeof(buf), at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    if (posix::pwrite_all(to, buf, static_cast<size_t>(n), at) < 0) {
      ok = false;
      break;
    }
    at += n;
  }
  close(from);
  return ok;
}

}  // namespace

CrashRecorder::Victim CrashRecorder::victim_at(int dir_fd, const std::string& name) {
  Victim v;
  v.fd = openat(dir_fd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (v.fd < 0) return v;
  if (fstatat(v.fd, "", &v.st, AT_EMPTY_PATH) != 0) {
    close(v.fd);
    v.fd = -1;
    return v;
  }
  if (S_ISLNK(v.st.st_mode)) {
    char buf[4096];
    const ssize_t n = readlinkat(v.fd, "", buf, sizeof(buf));
    if (n >= 0) v.link_target.assign(buf, static_cast<size_t>(n));
  }
  return v;
}

CrashRecorder::CrashRecorder(uint64_t limit_bytes) : limit_bytes_(limit_bytes) {}

CrashRecorder::~CrashRecorder() {
  for (const auto& [file, fd] : files_) close(fd);
  for (const auto& [entry, c] : changes_) close_change(c);
}

void CrashRecorder::close_change(const Change& c) {
  for (int fd : {c.dir_fd, c.to_fd, c.victim.fd, c.inode_fd}) {
    if (fd >= 0) close(fd);
  }
}

uint64_t CrashRecorder::before_write(uint64_t file, int fd, uint64_t offset, uint64_t length,
                                     uint64_t size, int64_t now) {
  if (length == 0) return 0;
  std::lock_guard lock(mu_);
  if (now - last_prune_ns_ >= kPruneIntervalNs) prune_locked(now);
  auto found = files_.find(file);
  if (found == files_.end()) {
    // The daemon's own descriptor of the same inode (the caller's may be write-only, O_APPEND
    // or O_DIRECT): reopened through /proc, which names the inode, not a path.
    const int own = open(proc_fd_path(fd).c_str(), O_RDWR | O_CLOEXEC);
    if (own < 0) {
      log_.keep(file);
      return 0;
    }
    found = files_.emplace(file, own).first;
  }
  std::string old;
  if (offset < size) {
    old.resize(std::min(length, size - offset));
    size_t got = 0;
    while (got < old.size()) {
      const ssize_t n = pread(found->second, old.data() + got, old.size() - got,
                              static_cast<off_t>(offset + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    old.resize(got);  // the file was shorter than `size` said: the rest was zeros
  }
  return log_.record_write(file, offset, length, size, std::move(old));
}

void CrashRecorder::keep(uint64_t file) {
  std::lock_guard lock(mu_);
  log_.keep(file);
  auto found = files_.find(file);
  if (found == files_.end()) return;
  close(found->second);
  files_.erase(found);
}

uint64_t CrashRecorder::add_change(Change change, int64_t now) {
  std::lock_guard lock(mu_);
  if (now - last_prune_ns_ >= kPruneIntervalNs) prune_locked(now);
  const uint64_t entry = next_entry_++;
  changes_.emplace(entry, std::move(change));
  return log_.record_change(entry);
}

uint64_t CrashRecorder::after_create(int dir_fd, const std::string& name, dev_t dev, ino_t ino,
                                     bool directory, int64_t now) {
  Change c{Change::kCreated};
  c.inode_fd = openat(dir_fd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (c.inode_fd < 0 || fstatat(c.inode_fd, "", &st, AT_EMPTY_PATH) != 0 || st.st_dev != dev ||
      st.st_ino != ino) {
    close_change(c);
    return 0;  // gone already
  }
  c.dir_fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
  if (c.dir_fd < 0) {
    close_change(c);
    return 0;
  }
  c.name = name;
  c.dev = dev;
  c.ino = ino;
  c.directory = directory;
  return add_change(std::move(c), now);
}

uint64_t CrashRecorder::before_remove(int dir_fd, const std::string& name, int64_t now) {
  Change c{Change::kRemoved};
  c.victim = victim_at(dir_fd, name);
  if (c.victim.fd < 0) return 0;
  c.dir_fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
  if (c.dir_fd < 0) {
    close(c.victim.fd);
    return 0;
  }
  c.name = name;
  return add_change(std::move(c), now);
}

uint64_t CrashRecorder::before_rename(int from_fd, const std::string& name, int to_fd,
                                      const std::string& to_name, int64_t now) {
  Change c{Change::kRenamed};
  c.inode_fd = openat(from_fd, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat moved;
  if (c.inode_fd < 0 || fstatat(c.inode_fd, "", &moved, AT_EMPTY_PATH) != 0) {
    close_change(c);
    return 0;
  }
  c.victim = victim_at(to_fd, to_name);  // none when the name is free
  c.dir_fd = fcntl(from_fd, F_DUPFD_CLOEXEC, 3);
  c.to_fd = fcntl(to_fd, F_DUPFD_CLOEXEC, 3);
  if (c.dir_fd < 0 || c.to_fd < 0) {
    close_change(c);
    return 0;
  }
  c.name = name;
  c.to_name = to_name;
  c.dev = moved.st_dev;
  c.ino = moved.st_ino;
  return add_change(std::move(c), now);
}

void CrashRecorder::prune(int64_t now) {
  std::lock_guard lock(mu_);
  prune_locked(now);
}

void CrashRecorder::prune_locked(int64_t now) {
  last_prune_ns_ = now;
  const UndoLog::Pruned pruned = log_.prune(now);
  for (uint64_t file : pruned.files) {
    auto found = files_.find(file);
    if (found == files_.end()) continue;
    close(found->second);
    files_.erase(found);
  }
  for (uint64_t entry : pruned.entries) {
    auto found = changes_.find(entry);
    if (found == changes_.end()) continue;
    close_change(found->second);
    changes_.erase(found);
  }
}

void CrashRecorder::restore_file(const FileRestore& r, CrashReport& report) {
  auto found = files_.find(r.file);
  if (found == files_.end()) {
    report.errors.push_back("a file written since its last durable point has no descriptor");
    return;
  }
  const int fd = found->second;
  for (const RestorePiece& p : r.pieces) {
    const ssize_t n =
        posix::pwrite_all(fd, p.bytes.data(), p.bytes.size(), static_cast<off_t>(p.offset));
    if (n < 0) {
      report.errors.push_back(path_of(fd) + ": " + std::strerror(static_cast<int>(-n)));
      return;
    }
  }
  if (ftruncate(fd, static_cast<off_t>(r.size)) != 0) {
    report.errors.push_back(path_of(fd) + ": truncate: " + std::strerror(errno));
    return;
  }
  ++report.files;
  report.lost_bytes += r.lost_bytes;
  report.survived_bytes += r.survived_bytes;
  add_path(report, path_of(fd));
}

// Brings back `v` as `name` in `dir_fd` (free): a link to the same inode while it has another
// name, else a copy with its mode, owner and times.
void CrashRecorder::bring_back(int dir_fd, const std::string& name, const Victim& v,
                               CrashReport& report) {
  const std::string path = path_of(dir_fd) + "/" + name;
  const mode_t type = v.st.st_mode & S_IFMT;
  const mode_t perms = v.st.st_mode & 07777;
  int r = -1;
  if (type != S_IFDIR &&
      linkat(AT_FDCWD, proc_fd_path(v.fd).c_str(), dir_fd, name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
    r = 0;
  } else if (type == S_IFREG) {
    const int fd =
        openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      const timespec times[2] = {v.st.st_atim, v.st.st_mtim};
      r = copy_bytes(v.fd, fd) && fchown(fd, v.st.st_uid, v.st.st_gid) == 0 &&
                  fchmod(fd, perms) == 0 && futimens(fd, times) == 0
              ? 0
              : -1;
      close(fd);
    }
  } else {
    if (type == S_IFDIR) {
      r = mkdirat(dir_fd, name.c_str(), 0700);
    } else if (type == S_IFLNK) {
      r = symlinkat(v.link_target.c_str(), dir_fd, name.c_str());
    } else {
      r = mknodat(dir_fd, name.c_str(), type | 0600, v.st.st_rdev);
    }
    if (r == 0) {  // the new entry, not what a name may point to
      fchownat(dir_fd, name.c_str(), v.st.st_uid, v.st.st_gid, AT_SYMLINK_NOFOLLOW);
      if (type != S_IFLNK) fchmodat(dir_fd, name.c_str(), perms, AT_SYMLINK_NOFOLLOW);
    }
  }
  if (r != 0) {
    report.errors.push_back(path + ": not brought back: " + std::strerror(errno));
    return;
  }
  struct stat now;
  if (fstatat(dir_fd, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 &&
      (now.st_dev != v.st.st_dev || now.st_ino != v.st.st_ino)) {
    copies_[{v.st.st_dev, v.st.st_ino}] = {now.st_dev, now.st_ino};
  }
  ++report.restored;
  add_path(report, path + " (brought back)");
}

bool CrashRecorder::is_inode(int dir_fd, const std::string& name, dev_t dev, ino_t ino) const {
  struct stat st;
  if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return false;
  const auto copy = copies_.find({dev, ino});
  if (copy != copies_.end()) std::tie(dev, ino) = copy->second;
  return st.st_dev == dev && st.st_ino == ino;
}

void CrashRecorder::undo_change(const Change& c, CrashReport& report) {
  switch (c.kind) {
    case Change::kCreated: {
      // Renamed, removed or replaced since: the name is not the creation's any more.
      if (!is_inode(c.dir_fd, c.name, c.dev, c.ino)) return;
      const std::string path = path_of(c.dir_fd) + "/" + c.name;
      if (unlinkat(c.dir_fd, c.name.c_str(), c.directory ? AT_REMOVEDIR : 0) != 0) {
        report.errors.push_back(path + ": not removed: " + std::strerror(errno));
        return;
      }
      ++report.removed;
      add_path(report, path + " (removed)");
      return;
    }
    case Change::kRenamed:
      if (is_inode(c.to_fd, c.to_name, c.dev, c.ino) && is_free(c.dir_fd, c.name)) {
        if (renameat2(c.to_fd, c.to_name.c_str(), c.dir_fd, c.name.c_str(), RENAME_NOREPLACE) !=
            0) {
          report.errors.push_back(path_of(c.to_fd) + "/" + c.to_name +
                                  ": not renamed back: " + std::strerror(errno));
          return;
        }
        ++report.restored;
        add_path(report, path_of(c.dir_fd) + "/" + c.name + " (renamed back)");
      }
      if (c.victim.fd >= 0 && is_free(c.to_fd, c.to_name))
        bring_back(c.to_fd, c.to_name, c.victim, report);
      return;
    case Change::kRemoved:
      if (is_free(c.dir_fd, c.name)) bring_back(c.dir_fd, c.name, c.victim, report);
      return;
  }
}

CrashReport CrashRecorder::crash(int64_t now, Tear tear, uint64_t seed) {
  std::lock_guard lock(mu_);
  CrashReport report;
  report.seed = seed;
  report.tear = tear;
  const CrashPlan plan = plan_crash(log_.snapshot(now), tear, seed);
  for (const FileRestore& r : plan.files) restore_file(r, report);
  for (uint64_t entry : plan.undo_changes) {
    auto found = changes_.find(entry);
    if (found != changes_.end()) undo_change(found->second, report);
  }
  for (const auto& [file, fd] : files_) fsync(fd);  // the backing disk holds the result
  return report;
}

}  // namespace diskcond::mount
