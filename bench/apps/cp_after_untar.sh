#!/usr/bin/env bash
# `cp -r` of a tree right after `tar -xf` made it in a conditioned directory, with the model's
# counters around the copy: how many reads reached the pretend disk, and how many pages written
# just before were answered from memory (written_page_reads; docs/conditioner.md "Caching").
#
#   DMC=path/to/dmc bench/apps/cp_after_untar.sh [PROFILE] [FILES]    (defaults: 0 2000; needs root)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DMC=${DMC:-$REPO/build/dmc}; P=${1:-0}; N=${2:-2000}
((EUID == 0)) || { echo "cp_after_untar: needs root" >&2; exit 3; }
. "$REPO/bench/apps/tree_mount.sh"
tree_mount_setup cp-after-untar
snap() {
  "$DMC" status "$S/disk" -json | jq -c '.counters | {reads: .read_commands, read_bytes,
    inode_tables: .metadata_reads, directories: .directory_reads, from_memory: .written_page_reads}'
}
mkdir -p "$S/disk/w/a"; tar -xf "$S/tree.tar" -C "$S/disk/w/a"
b=$(snap); t0=$(date +%s.%N); cp -r "$S/disk/w/a" "$S/disk/w/c"; t1=$(date +%s.%N)
echo "cp -r: $(echo "$t1 - $t0" | bc) s, $b -> $(snap)"
