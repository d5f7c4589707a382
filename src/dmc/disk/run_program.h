// Runs a helper program (mkfs) and waits for it: no shell, stdin from /dev/null, stdout and
// stderr captured so a failure can be reported as one line.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace diskcond::disk {

struct ProgramOutcome {
  int exit_code = -1;  // -1 when killed by a signal
  std::string output;  // stdout and stderr, interleaved, at most 64 KiB
};

// `argv[0]` is looked up in $PATH, then /usr/sbin and /sbin (where mkfs lives, and which a
// non-login root shell may not have in its PATH). Errors: the program was not found or could not
// be started.
Result<ProgramOutcome> run_program(const std::vector<std::string>& argv);

// The first non-empty line of `output`, for an error message ("" when there is none).
std::string first_line(const std::string& output);

}  // namespace diskcond::disk
