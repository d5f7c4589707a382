// Where --latency-log may write, and opening it. The log is written with plain buffered writes,
// so it must never be a block device (a typo would overwrite a disk) nor one of the run's targets
// (a read test would write its own target); a directory, or a file in a directory that does not
// exist, is a run-time error when it is opened.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

namespace diskcond::rawio {

// An error line (a usage error: nothing was touched) when `path` exists and is a block device or
// the same file as one of `targets` (paths as given: devices, files, directories' test files).
Status check_latency_log_path(const std::string& path, const std::vector<std::string>& targets);

// The open log file; remembers whether opening it made the file, so that a run that cannot start
// after all leaves nothing behind (discard()).
class LatencyLogFile {
 public:
  // Opens (creates or truncates) `path` for writing; an error line when it cannot.
  static Result<LatencyLogFile> open(const std::string& path);

  std::FILE* get() const { return file_.get(); }
  // Closes the file and removes it when opening made it.
  void discard();

 private:
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_{nullptr, &std::fclose};
  std::string path_;
  bool made_ = false;
};

}  // namespace diskcond::rawio
