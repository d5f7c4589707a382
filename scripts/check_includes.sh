#!/usr/bin/env bash
# Project headers are included by their path from src/ ("core/units.h"). The layers rest on it
# (CMakeLists.txt): a layer's include roots show only the layers it may use, but an include that
# climbs out of its folder ("../dmc/verify.h") is found next to the including file and would slip
# past them. Run by ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
if grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*\.\./' src bench fuzz; then
  echo "check_includes: include project headers by their path from src/, without ../" >&2
  exit 1
fi
