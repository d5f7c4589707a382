#!/usr/bin/env bash
# Builds and runs the whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer, then
# under ThreadSanitizer, each in its own build directory. Exits non-zero on any report.
#   scripts/sanitize.sh [asan|tsan]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

run() {  # name, sanitizers, extra environment
  local name=$1 sanitizers=$2
  cmake -S . -B "build-$name" -DCMAKE_BUILD_TYPE=Debug -DDISKCOND_SANITIZE="$sanitizers" >/dev/null
  cmake --build "build-$name" -j"$(nproc)"
  echo "sanitize: running the tests under $sanitizers" >&2
  env "${@:3}" "build-$name/diskcond_tests" ${GTEST_FILTER:+--gtest_filter="$GTEST_FILTER"}
}

which=${1:-all}
if [[ $which == all || $which == asan ]]; then
  run asan address,undefined UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1
fi
if [[ $which == all || $which == tsan ]]; then
  # ThreadSanitizer slows the daemon 5-15x, below the profiles the timing tests hold it to: they
  # measure speed, not races, so they are left out here (AddressSanitizer runs them).
  GTEST_FILTER='-MountTiming.*:MountVerify.*' \
    run tsan thread TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
fi
