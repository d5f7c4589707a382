#!/usr/bin/env bash
# The block I/Os the reference sends its disk during SQLite's one-row transactions: ftrace
# `block_rq_issue` of the loop device of ext4 on a `dmc disk` (RWBS flags: W write, S sync, M
# metadata, FF a flush), the first LINES of them and the count of each kind. Compare with the
# conditioned directory's counters for the same transactions (sqlite_commands.sh).
#
#   bench/apps/trace_sqlite.sh [PROFILE [wal|delete [TXNS [LINES]]]]   (defaults: 3 wal 20 30)
#   (needs root, tracefs, sqlite3, mkfs.ext4)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DMC=${DMC:-$REPO/build/dmc}; P=${1:-3}; MODE=${2:-wal}; TXNS=${3:-20}; LINES=${4:-30}
[[ $MODE == wal || $MODE == delete ]] || { echo "trace_sqlite: mode must be wal or delete, not '$MODE'" >&2; exit 2; }
((EUID == 0)) || { echo "trace_sqlite: needs root" >&2; exit 3; }
PATH=$PATH:/usr/sbin:/sbin
T=/sys/kernel/tracing
[[ -d $T/events/block ]] || T=/sys/kernel/debug/tracing
[[ -d $T/events/block ]] || { echo "trace_sqlite: no tracefs (mount -t tracefs none /sys/kernel/tracing)" >&2; exit 1; }
"$DMC" show "$P" >/dev/null 2>&1 || { echo "trace_sqlite: unknown profile '$P'" >&2; exit 2; }

S=$(mktemp -d /var/tmp/trace-sqlite.XXXXXX)
export DISKCOND_STATE_DIR=$S/state
cleanup() {
  echo 0 >"$T/tracing_on" 2>/dev/null || true
  echo 0 >"$T/events/block/block_rq_issue/enable" 2>/dev/null || true
  umount "$S/ref" 2>/dev/null || true
  "$DMC" disk remove "$S/refdisk/ref.img" >/dev/null 2>&1 || true
  "$DMC" stop "$S/refdisk" >/dev/null 2>&1 || true
  umount "$S/refdisk" 2>/dev/null || true
  rm -rf "$S"
}
trap cleanup EXIT
mkdir -p "$S/refdisk" "$S/ref"
SIZE=$(($(stat -f -c '%b * %S' "$S") / 1048576))m
mount -t tmpfs -o "size=$SIZE" tmpfs "$S/refdisk"
"$DMC" start "$S/refdisk" "$P" >/dev/null
dev=$("$DMC" disk create "$S/refdisk/ref.img" "$SIZE")
mkfs.ext4 -F -q -b 4096 -E lazy_itable_init=1,lazy_journal_init=1,nodiscard "$dev"
mount -o noinit_itable,no_prefetch_block_bitmaps "$dev" "$S/ref"
{
  echo "PRAGMA synchronous=FULL;"
  for i in $(seq 1 "$TXNS"); do echo "BEGIN; INSERT INTO t(v) VALUES('row $i of the diskcond apps benchmark'); COMMIT;"; done
} >"$S/txns.sql"
sqlite3 "$S/ref/$MODE.db" "PRAGMA journal_mode=${MODE^^}; CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);" >/dev/null
sync
echo 0 >"$T/tracing_on"; : >"$T/trace"
echo 1 >"$T/events/block/block_rq_issue/enable"; echo 1 >"$T/tracing_on"
sqlite3 "$S/ref/$MODE.db" <"$S/txns.sql" >/dev/null
echo 0 >"$T/tracing_on"; echo 0 >"$T/events/block/block_rq_issue/enable"
majmin=$(printf '%d,%d' "0x$(stat -c %t "$dev")" "0x$(stat -c %T "$dev")")
echo "profile $P, $MODE, $TXNS transactions: device, flags, bytes, sector + count, issuer"
grep " $majmin " "$T/trace" | sed 's/.*block_rq_issue: //' | head -n "$LINES"
echo "count by flags:"
grep " $majmin " "$T/trace" | sed 's/.*block_rq_issue: //' | awk '{print $2}' | sort | uniq -c
