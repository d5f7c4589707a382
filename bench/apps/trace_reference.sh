#!/usr/bin/env bash
# What the reference issues to its disk: the block I/Os (ftrace block_rq_issue, with ext4's RWBS
# flags: RA readahead, RM metadata, RAM metadata readahead) of ext4 on a `dmc disk` over an image
# in a conditioned directory, during a cold read, a cold `find | stat` and an `rm -rf` of a tree,
# next to the model reads the conditioned directory itself issues for the same steps. How the
# apps benchmark's rows were explained (bench/apps/notes.md).
#
#   bench/apps/trace_reference.sh [PROFILE [FILES]]   (defaults 0 and 300)
#
# Needs root, tracefs (mounted at /sys/kernel/debug/tracing or /sys/kernel/tracing), jq,
# mkfs.ext4 and build/dmc. Each step's trace is kept in $TRACE_DIR (default /var/tmp).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DMC=$REPO/build/dmc
PROFILE=${1:-0}; FILES=${2:-300}; TRACE_DIR=${TRACE_DIR:-/var/tmp}
((EUID == 0)) || { echo "trace_reference: needs root" >&2; exit 3; }
T=/sys/kernel/debug/tracing
[[ -d $T/events/block ]] || T=/sys/kernel/tracing
[[ -d $T/events/block ]] || { echo "trace_reference: no tracefs (mount -t tracefs none /sys/kernel/tracing)" >&2; exit 1; }
OPTIONS=noinit_itable,no_prefetch_block_bitmaps  # as bench/apps.sh mounts the reference

S=$(mktemp -d /var/tmp/trace-reference.XXXXXX)
cleanup() {
  echo 0 >"$T/tracing_on" 2>/dev/null || true
  umount "$S/ref" 2>/dev/null || true
  "$DMC" disk remove "$S/c/ref.img" >/dev/null 2>&1 || true
  "$DMC" stop "$S/c" >/dev/null 2>&1 || true
  rm -rf "$S"
}
trap cleanup EXIT
mkdir -p "$S/c" "$S/ref"
python3 "$REPO/bench/apps/make_tree.py" "$S/tree" "$FILES" >/dev/null
tar --sort=name -cf "$S/tree.tar" -C "$S/tree" .
"$DMC" start "$S/c" "$PROFILE" >/dev/null
dev=$("$DMC" disk create "$S/c/ref.img" "$(($(stat -f -c '%b * %S' "$S") / 1048576))m")
mkfs.ext4 -F -q -b 4096 -E lazy_itable_init=1,lazy_journal_init=1,nodiscard "$dev"
mount -o "$OPTIONS" "$dev" "$S/ref"
mkdir "$S/c/work"
majmin=$(printf '%d,%d' "0x$(stat -c %t "$dev")" "0x$(stat -c %T "$dev")")
model_reads() { "$DMC" status "$S/c" -json | jq -r '.counters.read_commands'; }
cold() {  # cold DIR: nothing of it in memory (the reference is remounted: jbd2 pins its buffers)
  sync -f "$1"; "$DMC" sync "$S/c" >/dev/null
  if [[ $1 == "$S/ref" ]]; then umount "$1"; mount -o "$OPTIONS" "$dev" "$1"; fi
  echo 3 >/proc/sys/vm/drop_caches
}
step() {  # step NAME DIR COMMAND...: time, model reads and (for the reference) issued I/Os
  local name=$1 d=$2; shift 2
  echo 0 >"$T/tracing_on"; : >"$T/trace"; echo 1 >"$T/events/block/block_rq_issue/enable"; echo 1 >"$T/tracing_on"
  local r0 t0 t1; r0=$(model_reads); t0=$(date +%s%N)
  "$@"
  t1=$(date +%s%N); echo 0 >"$T/tracing_on"
  local where=conditioned issued=""
  if [[ $d == "$S/ref" ]]; then
    where=reference
    grep "block_rq_issue: $majmin " "$T/trace" >"$TRACE_DIR/trace_reference_$name.txt" || true
    issued="; issued by RWBS flags: $(awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+,[0-9]+$/) { print $(i + 1); break }}' \
      "$TRACE_DIR/trace_reference_$name.txt" | sort | uniq -c | tr -s ' \n' ' ')"
  fi
  echo "$where $name: $(((t1 - t0) / 1000000)) ms, $(($(model_reads) - r0)) model reads$issued"
}
for d in "$S/ref" "$S/c/work"; do
  mkdir "$d/a" "$d/b"
  tar -xf "$S/tree.tar" -C "$d/a"; tar -xf "$S/tree.tar" -C "$d/b"
  cold "$d"; step cold-read "$d" bash -c "find '$d/b' -type f -print0 | xargs -0 cat >/dev/null"
  cold "$d"; step cold-stat "$d" bash -c "find '$d/a' -print0 | xargs -0 stat >/dev/null"
  step rm-rf "$d" rm -rf "$d/a" "$d/b"
done
