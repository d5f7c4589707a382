#!/usr/bin/env bash
# Installs the Debian packages diskcond needs, only those that are missing.
# Idempotent: a second run installs nothing and does not touch apt's lists.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libfuse3-dev fuse3 liburing-dev libaio-dev
  libcli11-dev libfmt-dev nlohmann-json3-dev
  libsqlite3-dev libmount-dev libblkid-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  fio e2fsprogs util-linux procps librsvg2-bin jq
  clang-format-14 clang libbpf-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "setup: missing packages (${missing[*]}); run as root to install them" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists when they are absent or older than a day.
if [[ -z $(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages' -mmin -1440 2>/dev/null | head -1) ]]; then
  apt-get update -qq
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
