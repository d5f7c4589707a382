#!/usr/bin/env bash
# The project's one entry point for a new machine.
#   ./run.sh demo   install what is missing, build, run the demo (the main job)
#   ./run.sh test   install what is missing, build, run the whole test suite
#   ./run.sh build  install what is missing and build only
# Run as root (it installs Debian packages and mounts FUSE filesystems).
set -euo pipefail
cd "$(dirname "$0")"

build() {
  scripts/setup.sh
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build -j"$(nproc)"
}

case "${1:-}" in
  demo) build; exec scripts/demo.sh ;;
  test) build; cd build && exec ctest --output-on-failure ;;
  build) build ;;
  *) echo "usage: ./run.sh demo|test|build" >&2; exit 2 ;;
esac
