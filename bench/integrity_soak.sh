#!/usr/bin/env bash
# Integrity soak: the MountIntegrity tests with many more operations (default 100000 per test,
# over 4 concurrent clients) and a fresh seed, through real conditioned mounts (page cache, live
# profile changes, no cache). Needs root and a built tree (build/diskcond_tests).
#   bench/integrity_soak.sh [ops per test] [seed]
# Exit status is the test binary's; a failure prints seed, step, operation and first differing
# offset (rerun with the same arguments to reproduce).
set -euo pipefail
cd "$(dirname "$0")/.."
ops=${1:-100000}
seed=${2:-$(date +%s)}
echo "integrity soak: ops per test=$ops seed=$seed"
start=$(date +%s)
status=0
DISKCOND_INTEGRITY_OPS=$ops DISKCOND_INTEGRITY_SEED=$seed ./build/diskcond_tests \
  --gtest_filter='MountIntegrity.RandomOperations*' || status=$?
echo "integrity soak: done in $(($(date +%s) - start)) s, exit status $status"
exit $status
