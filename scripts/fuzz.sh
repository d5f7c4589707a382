#!/usr/bin/env bash
# Builds the libFuzzer harnesses in fuzz/ with clang (ASan + UBSan) and runs each for a while.
#   scripts/fuzz.sh [seconds per harness, default 60]
# Harnesses: units (sizes, times, rates), profile_toml (profile files), control (the daemon's
# control messages). Inputs that once
# crashed a harness live in fuzz/regressions/<harness>-* and are replayed first.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: seconds must be a positive whole number" >&2; exit 2; }
command -v clang++ >/dev/null || { echo "fuzz: clang++ is missing (apt-get install clang)" >&2; exit 1; }
out=build-fuzz
mkdir -p "$out"
core_sources=$(ls src/core/*.cc | grep -v '_test\.cc$')
declare -A extra_sources=([control]="src/dmc/mount/control_protocol.cc")
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -Isrc)
libs=(-lfmt)
for harness in units profile_toml control; do
  clang++ "${flags[@]}" "fuzz/${harness}_fuzz.cc" $core_sources ${extra_sources[$harness]:-} "${libs[@]}" \
    -o "$out/${harness}_fuzz"
  mkdir -p "$out/corpus/$harness"
  cp -n fuzz/corpus/"$harness"/* "$out/corpus/$harness/" 2>/dev/null || true
  # Inputs that once crashed must stay fixed.
  for input in fuzz/regressions/"$harness"-*; do
    [[ -e $input ]] || continue
    "$out/${harness}_fuzz" "$input" >/dev/null 2>&1 || { echo "fuzz: regression $input fails" >&2; exit 1; }
  done
  echo "fuzz: $harness for ${seconds}s" >&2
  "$out/${harness}_fuzz" -max_total_time="$seconds" -max_len=4096 "$out/corpus/$harness" 2>&1 | tail -n 3
done
