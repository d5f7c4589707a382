// dmc's exit codes and the value every command returns. docs/dmc.md lists the codes; scripts
// depend on them, so a code's meaning never changes.
#pragma once

#include <string>
#include <utility>

namespace diskcond::dmc {

enum class ExitCode : int {
  kOk = 0,
  kFailed = 1,     // the operation itself failed (mount, unmount, settings store, daemon)
  kUsage = 2,      // bad command line or bad value: nothing was changed
  kNeedsRoot = 3,  // the command changes settings the caller may not change (not root, not theirs)
  kWrongState =
      4,       // the mount is not in a state the command applies to (already / not conditioned)
  kStale = 5,  // the mount's daemon has died; 'dmc stop <mount>' clears it
  kOutOfTolerance = 6,  // dmc verify measured the mount, and some workload missed its prediction
};

// What a command ends with: a code and, unless the code is kOk, the one line dmc prints on stderr
// (without the "dmc: " prefix).
struct Outcome {
  ExitCode code = ExitCode::kOk;
  std::string message;
  bool quiet = false;  // the output already said it (status -json of a stale mount): no line

  bool ok() const { return code == ExitCode::kOk; }
};

inline Outcome success() {
  return {};
}
// `dmc run`: the command's own exit status (0 to 255) as dmc's, with no line of dmc's.
inline Outcome passed_through(int exit_status) {
  return {static_cast<ExitCode>(exit_status), "", true};
}
inline Outcome failure(ExitCode code, std::string message) {
  return {code, std::move(message)};
}
inline Outcome usage_error(std::string message) {
  return {ExitCode::kUsage, std::move(message)};
}

}  // namespace diskcond::dmc
