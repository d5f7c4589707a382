#!/usr/bin/env bash
# A cold `find | xargs stat` and an `rm -rf` of a tree and its copy in a conditioned directory,
# with the model's read counters around each: for A/B of the metadata-read rules between dmc builds.
#
#   DMC=path/to/dmc bench/apps/cold_tree.sh [PROFILE] [FILES]    (defaults: 2 2000; needs root)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DMC=${DMC:-$REPO/build/dmc}; P=${1:-2}; N=${2:-2000}
((EUID == 0)) || { echo "cold_tree: needs root (drop_caches)" >&2; exit 3; }
. "$REPO/bench/apps/tree_mount.sh"
tree_mount_setup cold-tree
snap() { "$DMC" status "$S/disk" -json | jq -c '.counters | {reads: .read_commands, inode_tables: .metadata_reads, directories: .directory_reads}'; }
timed() {  # timed NAME COMMAND...: seconds and the counters before and after
  local b t0 t1
  b=$(snap); t0=$(date +%s.%N); "${@:2}"; t1=$(date +%s.%N)
  echo "$1: $(echo "$t1 - $t0" | bc) s, $b -> $(snap)"
}
mkdir -p "$S/disk/w/a"; tar -xf "$S/tree.tar" -C "$S/disk/w/a"; cp -r "$S/disk/w/a" "$S/disk/w/c"
"$DMC" sync "$S/disk" >/dev/null; sync; echo 3 >/proc/sys/vm/drop_caches
stat_all() { find "$S/disk/w/a" -print0 | xargs -0 stat >/dev/null; }
timed "cold stat" stat_all
timed "rm -rf" rm -rf "$S/disk/w/a" "$S/disk/w/c"
