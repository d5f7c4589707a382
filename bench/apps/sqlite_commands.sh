#!/usr/bin/env bash
# What SQLite's one-row transactions cost the disk model in the conditioned directory and in the
# reference (ext4 on a `dmc disk` over an image in a second conditioned directory, over a tmpfs,
# as bench/apps.sh sets it up): wall time and the model's command counters (reads, writes and
# their mean size, flushes) of the mount under each, per transaction. The two places alternate by
# round. How the write-back model's page, allocation and directory-fsync rules were checked
# (docs/disk-model.md, "Write-back").
#
#   DMC=path/to/dmc bench/apps/sqlite_commands.sh [PROFILE [wal|delete [TXNS [ROUNDS]]]]
#   (defaults: 3 wal 500 2; needs root, sqlite3, jq, mkfs.ext4)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DMC=${DMC:-$REPO/build/dmc}; P=${1:-3}; MODE=${2:-wal}; TXNS=${3:-500}; ROUNDS=${4:-2}
[[ $MODE == wal || $MODE == delete ]] || { echo "sqlite_commands: mode must be wal or delete, not '$MODE'" >&2; exit 2; }
[[ $TXNS =~ ^[1-9][0-9]*$ && $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "sqlite_commands: TXNS and ROUNDS must be positive integers" >&2; exit 2; }
((EUID == 0)) || { echo "sqlite_commands: needs root (mounts, a loop device)" >&2; exit 3; }
PATH=$PATH:/usr/sbin:/sbin
for tool in sqlite3 jq mkfs.ext4 bc; do command -v "$tool" >/dev/null || { echo "sqlite_commands: $tool is missing" >&2; exit 1; }; done
"$DMC" show "$P" >/dev/null 2>&1 || { echo "sqlite_commands: unknown profile '$P'" >&2; exit 2; }

S=$(mktemp -d /var/tmp/sqlite-commands.XXXXXX)
export DISKCOND_STATE_DIR=$S/state
cleanup() {
  umount "$S/ref" 2>/dev/null || true
  "$DMC" disk remove "$S/refdisk/ref.img" >/dev/null 2>&1 || true
  "$DMC" stop "$S/refdisk" >/dev/null 2>&1 || true
  "$DMC" stop "$S/disk" >/dev/null 2>&1 || true
  umount "$S/refdisk" 2>/dev/null || true
  rm -rf "$S"
}
trap cleanup EXIT
mkdir -p "$S/disk" "$S/refdisk" "$S/ref"
SIZE=$(($(stat -f -c '%b * %S' "$S") / 1048576))m  # the pretend capacity, as bench/apps.sh
mount -t tmpfs -o "size=$SIZE" tmpfs "$S/refdisk"
"$DMC" start "$S/disk" "$P" >/dev/null
"$DMC" start "$S/refdisk" "$P" >/dev/null
dev=$("$DMC" disk create "$S/refdisk/ref.img" "$SIZE")
mkfs.ext4 -F -q -b 4096 -E lazy_itable_init=1,lazy_journal_init=1,nodiscard "$dev"
mount -o noinit_itable,no_prefetch_block_bitmaps "$dev" "$S/ref"
{
  echo "PRAGMA synchronous=FULL;"
  for i in $(seq 1 "$TXNS"); do echo "BEGIN; INSERT INTO t(v) VALUES('row $i of the diskcond apps benchmark'); COMMIT;"; done
} >"$S/txns.sql"

counters() { "$DMC" status "$1" -json | jq -r '.counters | "\(.read_commands) \(.write_commands) \(.write_bytes) \(.flush_commands)"'; }
run() {  # run NAME DIR MOUNT: the transactions in DIR, counted on MOUNT's model
  local d=$2 m=$3 before after t0 t1
  rm -f "$d/$MODE.db"*
  sqlite3 "$d/$MODE.db" "PRAGMA journal_mode=${MODE^^}; CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);" >/dev/null
  sync -f "$d"; "$DMC" sync "$S/disk" >/dev/null; "$DMC" sync "$S/refdisk" >/dev/null
  before=$(counters "$m"); t0=$(date +%s%N)
  sqlite3 "$d/$MODE.db" <"$S/txns.sql" >/dev/null
  t1=$(date +%s%N); after=$(counters "$m")
  read -r r0 w0 b0 f0 <<<"$before"; read -r r1 w1 b1 f1 <<<"$after"
  local w=$((w1 - w0))
  printf '%-9s %-6s %7.3f s  reads %5d  writes %5d (%5.1f KiB each)  flushes %5d  per transaction: %.2f writes, %.2f flushes\n' \
    "$1" "$MODE" "$(echo "($t1 - $t0) / 10^9" | bc -l)" $((r1 - r0)) "$w" \
    "$(echo "($b1 - $b0) / 1024 / ($w + ($w == 0))" | bc -l)" $((f1 - f0)) \
    "$(echo "$w / $TXNS" | bc -l)" "$(echo "($f1 - $f0) / $TXNS" | bc -l)"
}
echo "profile $P, $MODE, $TXNS transactions, $ROUNDS round(s), dmc $DMC, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M) UTC"
for r in $(seq 1 "$ROUNDS"); do
  if ((r % 2)); then run directory "$S/disk" "$S/disk"; run reference "$S/ref" "$S/refdisk"
  else run reference "$S/ref" "$S/refdisk"; run directory "$S/disk" "$S/disk"; fi
done
