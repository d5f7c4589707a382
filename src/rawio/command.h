// The rawio command: resolves targets, refuses unsafe writes, makes test files, runs the tests
// through run_test and hands the results to a formatter. Results go to `out`, everything else
// (warnings, progress, errors) to `err`, one line each.
#pragma once

#include <cstdio>

#include "rawio/command_line.h"

namespace diskcond::rawio {

// Runs `invocation` and returns rawio's exit code (see ExitCode; 128 + signal if interrupted).
int run_command(const Invocation& invocation, std::FILE* out, std::FILE* err);

}  // namespace diskcond::rawio
