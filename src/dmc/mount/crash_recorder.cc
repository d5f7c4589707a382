#include "dmc/mount/crash_recorder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
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

}  // namespace

CrashRecorder::CrashRecorder(uint64_t limit_bytes) : limit_bytes_(limit_bytes) {}

CrashRecorder::~CrashRecorder() {
  for (const auto& [file, fd] : files_) close(fd);
  for (const auto& [entry, c] : created_) close(c.dir_fd);
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

uint64_t CrashRecorder::after_create(int dir_fd, const std::string& name, dev_t dev, ino_t ino,
                                     bool directory) {
  const int dir = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
  if (dir < 0) return 0;
  std::lock_guard lock(mu_);
  const uint64_t entry = next_entry_++;
  created_.emplace(entry, Created{dir, name, dev, ino, directory});
  return log_.record_create(entry);
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
    auto found = created_.find(entry);
    if (found == created_.end()) continue;
    close(found->second.dir_fd);
    created_.erase(found);
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

void CrashRecorder::remove_entry(const Created& c, CrashReport& report) {
  const std::string path = path_of(c.dir_fd) + "/" + c.name;
  struct stat st;
  if (fstatat(c.dir_fd, c.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != c.dev ||
      st.st_ino != c.ino) {
    return;  // renamed, removed or replaced since: the name is not the creation's any more
  }
  if (unlinkat(c.dir_fd, c.name.c_str(), c.directory ? AT_REMOVEDIR : 0) != 0) {
    report.errors.push_back(path + ": not removed: " + std::strerror(errno));
    return;
  }
  ++report.removed;
  add_path(report, path + " (removed)");
}

CrashReport CrashRecorder::crash(int64_t now, Tear tear, uint64_t seed) {
  std::lock_guard lock(mu_);
  CrashReport report;
  report.seed = seed;
  report.tear = tear;
  const CrashPlan plan = plan_crash(log_.snapshot(now), tear, seed);
  for (const FileRestore& r : plan.files) restore_file(r, report);
  for (uint64_t entry : plan.remove_entries) {
    auto found = created_.find(entry);
    if (found != created_.end()) remove_entry(found->second, report);
  }
  for (const auto& [file, fd] : files_) fsync(fd);  // the backing disk holds the result
  return report;
}

}  // namespace diskcond::mount
