#!/usr/bin/env bash
# apps.sh's cp -r step alone: untar the tree into a conditioned directory, `dmc sync`, drop the
# page cache, read every file (the cold read), then `cp -r` it, with the model's counters and the
# kernel's file refaults around the copy. Run once with the guest's DAMON (if any) as it is and
# once with it stopped, per round: whether page reclaim makes the copy read from the disk again.
#
#   DMC=path/to/dmc bench/apps/cp_after_cold_read.sh [PROFILE] [ROUNDS]   (defaults: 2 2; root)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DMC=${DMC:-$REPO/build/dmc}; P=${1:-2}; ROUNDS=${2:-2}; N=2000
((EUID == 0)) || { echo "cp_after_cold_read: needs root" >&2; exit 3; }
. "$REPO/bench/apps/tree_mount.sh"
tree_mount_setup cp-after-cold-read
DAMON=/sys/kernel/mm/damon/admin/kdamonds/0/state
damon_was=$(cat "$DAMON" 2>/dev/null || echo none)
damon_set() { [[ $damon_was == none || $(cat "$DAMON") == "$1" ]] || echo "$1" >"$DAMON"; }
trap 'damon_set "$damon_was"; "$DMC" stop "$S/disk" >/dev/null 2>&1; rm -rf "$S"' EXIT
snap() {
  "$DMC" status "$S/disk" -json | jq -c '.counters | {reads: .read_commands,
    inode_tables: .metadata_reads, directories: .directory_reads}'
}
refaults() { awk '/^workingset_refault_file /{print $2}' /proc/vmstat; }
now() { date +%s.%N; }
for r in $(seq 1 "$ROUNDS"); do
  for damon in "$damon_was" off; do
    damon_set "$damon"
    rm -rf "$S/disk/w"; mkdir -p "$S/disk/w/a"; tar -xf "$S/tree.tar" -C "$S/disk/w/a"
    sync -f "$S/disk"; "$DMC" sync "$S/disk"; echo 3 >/proc/sys/vm/drop_caches
    t0=$(now); find "$S/disk/w/a" -type f -print0 | xargs -0 cat >/dev/null; t1=$(now)
    before=$(snap); f0=$(refaults)
    cp -r "$S/disk/w/a" "$S/disk/w/c"; t2=$(now)
    printf '%s load %s round %s damon %s: cold read %.2f s, cp -r %.2f s, %s -> %s, refaults %d\n' \
      "$(date +%H:%M:%S)" "$(cut -d' ' -f1 /proc/loadavg)" "$r" "$damon" "$(echo "$t1 - $t0" | bc)" \
      "$(echo "$t2 - $t1" | bc)" "$before" "$(snap)" $(($(refaults) - f0))
  done
done
