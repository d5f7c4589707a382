#!/bin/bash
# Issue 13, item 5: a real install. Run by ctest with the build directory (already built):
#   1. `cmake --install` into a scratch root (DESTDIR), with the default prefix and with /usr: the
#      binaries, the man pages, dmc-boot.service running the installed dmc, /etc/diskcond/profiles;
#      the installed dmc and rawio run.
#   2. scripts/package.sh's .deb: `dpkg-deb -c` lists the same files under /usr, its control
#      files enable the unit, and unpacked into a scratch root (`dpkg-deb -x`) the unit runs the
#      packaged dmc, which runs.
# Exit 77 (skipped) when cpack or dpkg-deb is missing.
set -euo pipefail
build=$(realpath "${1:?usage: install_test.sh <build-dir>}")
src=$(cd "$(dirname "$0")/.." && pwd)
for tool in cmake cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "install_test: $tool missing: skipped"; exit 77; }
done
scratch=$(mktemp -d /tmp/diskcond-install-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
failures=0
fail() { echo "install_test: FAIL: $*" >&2; failures=$((failures + 1)); }
expect_file() { [[ -f $1 ]] || fail "missing $1"; }
expect_exec() { [[ -x $1 && -f $1 ]] || fail "missing or not executable: $1"; }
expect_line() { grep -qxF "$2" "$1" 2>/dev/null || fail "$1 lacks the line '$2'"; }

# The files an install under <prefix> must hold, in root directory $1.
check_tree() {
  local root=$1 prefix=$2
  expect_exec "$root$prefix/bin/dmc"
  expect_exec "$root$prefix/bin/rawio"
  expect_file "$root$prefix/share/man/man1/dmc.1"
  expect_file "$root$prefix/share/man/man1/rawio.1"
  expect_file "$root$prefix/lib/systemd/system/dmc-boot.service"
  expect_line "$root$prefix/lib/systemd/system/dmc-boot.service" "ExecStart=$prefix/bin/dmc boot"
  [[ -d $root/etc/diskcond/profiles ]] || fail "missing $root/etc/diskcond/profiles/"
  "$root$prefix/bin/dmc" --version | grep -q '^dmc (diskcond) ' || fail "$root$prefix/bin/dmc --version"
  "$root$prefix/bin/rawio" --version >/dev/null || fail "$root$prefix/bin/rawio --version"
}

# 1. cmake --install, default prefix and /usr.
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
DESTDIR="$scratch/default" cmake --install "$build" >/dev/null
check_tree "$scratch/default" "$prefix"
DESTDIR="$scratch/usr" cmake --install "$build" --prefix /usr >/dev/null
check_tree "$scratch/usr" /usr

# 2. The .deb.
deb=$("$src/scripts/package.sh" "$build" "$scratch/package" | tail -1)
[[ -f $deb ]] || { fail "package.sh made no .deb"; exit 1; }
listing=$(dpkg-deb -c "$deb" | awk '{print $6}')
for entry in ./usr/bin/dmc ./usr/bin/rawio ./usr/share/man/man1/dmc.1 ./usr/share/man/man1/rawio.1 \
             ./usr/lib/systemd/system/dmc-boot.service ./etc/diskcond/profiles/; do
  grep -qxF "$entry" <<<"$listing" || fail "the .deb lacks $entry (dpkg-deb -c: $(tr '\n' ' ' <<<"$listing"))"
done
[[ $(dpkg-deb -f "$deb" Package) == diskcond ]] || fail "package name"
grep -q 'libfuse3' <<<"$(dpkg-deb -f "$deb" Depends)" || fail "Depends lacks libfuse3: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -e "$deb" "$scratch/control"
expect_exec "$scratch/control/postinst"
grep -q 'systemctl enable dmc-boot.service' "$scratch/control/postinst" || fail "postinst does not enable the unit"
dpkg-deb -x "$deb" "$scratch/root"
check_tree "$scratch/root" /usr

if ((failures > 0)); then
  echo "install_test: $failures failures" >&2
  exit 1
fi
echo "install_test: cmake --install ($prefix and /usr) and $(basename "$deb") hold dmc, rawio, the man pages, dmc-boot.service and /etc/diskcond/profiles"
