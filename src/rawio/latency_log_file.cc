#include "rawio/latency_log_file.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace diskcond::rawio {

Status check_latency_log_path(const std::string& path, const std::vector<std::string>& targets) {
  namespace fs = std::filesystem;
  for (const std::string& target : targets) {  // also a file still to be made at that path
    if (fs::absolute(path).lexically_normal() == fs::absolute(target).lexically_normal())
      return make_error(fmt::format(
          "--latency-log: {} is the target {}; the log must be another file", path, target));
  }
  struct stat log {};
  if (::stat(path.c_str(), &log) != 0) return ok_status();  // to be made (or an error at open)
  if (S_ISBLK(log.st_mode))
    return make_error(fmt::format(
        "--latency-log: {} is a block device; the log is written to a file, never a disk", path));
  for (const std::string& target : targets) {
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0 && st.st_dev == log.st_dev && st.st_ino == log.st_ino)
      return make_error(fmt::format(
          "--latency-log: {} is the target {}; the log must be another file", path, target));
  }
  return ok_status();
}

Result<LatencyLogFile> LatencyLogFile::open(const std::string& path) {
  LatencyLogFile log;
  log.path_ = path;
  struct stat st {};
  log.made_ = ::lstat(path.c_str(), &st) != 0 && errno == ENOENT;
  log.file_.reset(std::fopen(path.c_str(), "w"));
  if (!log.file_)
    return make_error(
        fmt::format("--latency-log: cannot create {}: {}", path, std::strerror(errno)));
  return log;
}

void LatencyLogFile::discard() {
  file_.reset();
  if (made_) ::unlink(path_.c_str());
  made_ = false;
}

}  // namespace diskcond::rawio
