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
scripts/setup.sh
out=build-fuzz
# CMake builds each harness against the layer it fuzzes (DISKCOND_FUZZ in CMakeLists.txt).
cmake -S . -B "$out" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DDISKCOND_SANITIZE=address,undefined -DDISKCOND_FUZZ=ON >/dev/null
harnesses=(units profile_toml control)
cmake --build "$out" -j"$(nproc)" --target "${harnesses[@]/%/_fuzz}"
for harness in "${harnesses[@]}"; do
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
