// What `dmc verify` shows while it measures: on a terminal, one line rewritten in place
// ("dmc: verify: measuring SEQ1M Q1 read (1 of 7)") and erased before the results; elsewhere
// nothing, so that stderr carries only errors and warnings for scripts and logs.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

namespace diskcond::dmc {

class VerifyProgress {
 public:
  // `terminal`: whether `err` is a terminal. `workloads`: how many will be shown.
  VerifyProgress(std::ostream& err, bool terminal, size_t workloads);
  ~VerifyProgress();  // clear()
  VerifyProgress(const VerifyProgress&) = delete;
  VerifyProgress& operator=(const VerifyProgress&) = delete;

  // The next workload starts.
  void show(const std::string& label);
  // Erases the line, if one is shown.
  void clear();

 private:
  std::ostream& err_;
  bool terminal_;
  size_t workloads_;
  size_t shown_ = 0;
  bool active_ = false;
};

}  // namespace diskcond::dmc
