#include "rawio/progress_line.h"

#include <fmt/format.h>
#include <unistd.h>

namespace diskcond::rawio {

std::string progress_text(const std::string& target, const Progress& p) {
  double seconds = static_cast<double>(p.elapsed_ns) / 1e9;
  double kib = seconds > 0 ? static_cast<double>(p.bytes) / 1024.0 / seconds : 0.0;
  double per_sec = seconds > 0 ? static_cast<double>(p.transfers) / seconds : 0.0;
  return fmt::format("{}  {}  {:3.0f} s  {:10.1f} K/sec  {:8.0f}/sec", test_code(p.kind), target,
                     seconds, kib, per_sec);
}

ProgressLine::ProgressLine(std::FILE* stream, bool enabled)
    : stream_(stream), active_(enabled && isatty(fileno(stream))) {}

void ProgressLine::show(const std::string& target, const Progress& progress) {
  if (!active_) return;
  fmt::print(stream_, "\r\033[K{}", progress_text(target, progress));
  std::fflush(stream_);
  shown_ = true;
}

void ProgressLine::clear() {
  if (!active_ || !shown_) return;
  fmt::print(stream_, "\r\033[K");
  std::fflush(stream_);
  shown_ = false;
}

}  // namespace diskcond::rawio
