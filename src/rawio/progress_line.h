// The progress line rawio keeps on stderr while a test runs, only when stderr is a terminal.
#pragma once

#include <cstdio>
#include <string>

#include "rawio/runner.h"

namespace diskcond::rawio {

// "RR  /dev/sdb   3 s   1234.5 K/sec     77/sec"
std::string progress_text(const std::string& target, const Progress& progress);

class ProgressLine {
 public:
  // Shows nothing unless `enabled` and `stream` is a terminal.
  ProgressLine(std::FILE* stream, bool enabled);
  bool active() const { return active_; }
  void show(const std::string& target, const Progress& progress);
  // Erases the line, so that what follows starts on a clean line.
  void clear();

 private:
  std::FILE* stream_;
  bool active_;
  bool shown_ = false;
};

}  // namespace diskcond::rawio
