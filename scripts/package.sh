#!/bin/bash
# Builds diskcond's .deb: scripts/package.sh [build-dir [out-dir]]
#   build-dir  a CMake build directory (default: build); configured if it is not yet, and dmc and
#              rawio are built in it first
#   out-dir    where the .deb goes (default: <build-dir>/package)
# Prints the .deb's path. The package installs under /usr (dmc, rawio, their man pages,
# dmc-boot.service in /usr/lib/systemd/system) and /etc/diskcond/profiles, and enables
# dmc-boot.service where systemd runs. Install it with `sudo apt install ./diskcond_*.deb`.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$src/build}")
out=$(realpath -m "${2:-$build/package}")
for tool in cmake cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "package.sh: $tool is missing (apt install cmake dpkg-dev)" >&2; exit 1; }
done
[[ -f $build/CMakeCache.txt ]] || cmake -S "$src" -B "$build" >/dev/null
cmake --build "$build" --target dmc rawio >/dev/null
mkdir -p "$out"
(cd "$build" && cpack -G DEB -B "$out" >/dev/null)
rm -rf "$out/_CPack_Packages"
ls "$out"/diskcond_*.deb
