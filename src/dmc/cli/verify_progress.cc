#include "dmc/cli/verify_progress.h"

#include <fmt/format.h>

namespace diskcond::dmc {

VerifyProgress::VerifyProgress(std::ostream& err, bool terminal, size_t workloads)
    : err_(err), terminal_(terminal), workloads_(workloads) {}

VerifyProgress::~VerifyProgress() {
  clear();
}

void VerifyProgress::show(const std::string& label) {
  ++shown_;
  if (!terminal_) return;
  err_ << fmt::format("\r\033[Kdmc: verify: measuring {} ({} of {})", label, shown_, workloads_);
  err_.flush();
  active_ = true;
}

void VerifyProgress::clear() {
  if (!active_) return;
  err_ << "\r\033[K";
  err_.flush();
  active_ = false;
}

}  // namespace diskcond::dmc
