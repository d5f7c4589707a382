#!/bin/sh
# Crash consistency under `dmc crash` (docs/dmc.md, "dmc crash"): a program that saves with
# write + fsync + rename + fsync of the directory loses exactly what it had not fsynced (an append
# and a save without fsync: the old version comes back); the same
# program without fsync loses its data. Then the same with SQLite (synchronous=FULL and OFF),
# when the sqlite3 shell is installed. Needs root (dmc start and dmc crash). About 10 seconds.
#
#   sudo bench/crash_demo.sh [build/dmc]
set -eu

DMC=${1:-build/dmc}
PROFILE=7 # PCIe 3 SSD: the model's times are not what this shows
[ "$(id -u)" = 0 ] || { echo "crash_demo.sh: needs root (dmc start, dmc crash)" >&2; exit 77; }
[ -x "$DMC" ] || { echo "crash_demo.sh: no $DMC (build first)" >&2; exit 1; }

DIR=$(mktemp -d /var/tmp/dmc-crash-demo.XXXXXX)
cleanup() {
  "$DMC" stop "$DIR" -force >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT

show() { # file: its content on one line, or what is there instead
  if [ ! -e "$1" ]; then
    echo "  $(basename "$1"): missing"
  elif [ ! -s "$1" ]; then
    echo "  $(basename "$1"): empty (0 bytes)"
  else
    echo "  $(basename "$1"): $(tr '\n' '|' <"$1")"
  fi
}

crash() {
  "$DMC" crash "$DIR" -seed 1 | sed -n 1p | sed "s|$DIR|<dir>|g"
}

# save FILE TEXT: the careful way, every step made durable.
save() {
  printf '%s\n' "$2" >"$1.tmp"
  sync "$1.tmp"            # fsync the new content
  mv "$1.tmp" "$1"         # rename over the old one
  sync "$(dirname "$1")"   # fsync the directory: the rename is committed
}
# save_nosync FILE TEXT: the same without fsync.
save_nosync() {
  printf '%s\n' "$2" >"$1.tmp"
  mv "$1.tmp" "$1"
}

echo "== with fsync: save config v1 and v2 (write, fsync, rename, fsync dir), append log"
echo "   entries 1-3 with an fsync each; then, without fsync, entry 4 and config v3"
"$DMC" start "$DIR" $PROFILE -crashable
save "$DIR/config" v1
save "$DIR/config" v2
for i in 1 2 3; do
  echo "entry $i" >>"$DIR/log"
  sync "$DIR/log"
done
echo "entry 4" >>"$DIR/log"
save_nosync "$DIR/config" v3
echo "before the crash:"; show "$DIR/config"; show "$DIR/log"
crash
echo "after the crash:"; show "$DIR/config"; show "$DIR/log"
rm -rf "${DIR:?}"/*

echo
echo "== without fsync: the same program, no fsync anywhere"
"$DMC" start "$DIR" $PROFILE -crashable
save_nosync "$DIR/config" v1
save_nosync "$DIR/config" v2
for i in 1 2 3 4; do echo "entry $i" >>"$DIR/log"; done
echo "before the crash:"; show "$DIR/config"; show "$DIR/log"
crash
echo "after the crash:"; show "$DIR/config"; show "$DIR/log"
rm -rf "${DIR:?}"/*

if ! command -v sqlite3 >/dev/null; then
  echo; echo "(sqlite3 not installed: SQLite part skipped)"; exit 0
fi
for sync_mode in FULL OFF; do
  echo
  echo "== SQLite, synchronous=$sync_mode: 3 committed transactions of 100 rows, then a 4th"
  echo "   transaction left open (its rows are written, not committed) when the power goes"
  "$DMC" start "$DIR" $PROFILE -crashable
  sqlite3 "$DIR/app.db" "PRAGMA synchronous=$sync_mode; CREATE TABLE t(x);"
  for n in 1 2 3; do
    sqlite3 "$DIR/app.db" "PRAGMA synchronous=$sync_mode; BEGIN;
      WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<100)
      INSERT INTO t SELECT $n*1000+i FROM c; COMMIT;"
  done
  # The 4th: rows written to the database file (a big transaction spills out of SQLite's
  # one-page cache), then the power goes while it is still open.
  (
    echo "PRAGMA synchronous=$sync_mode; PRAGMA cache_size=1; BEGIN;"
    echo "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<5000)"
    echo "  INSERT INTO t SELECT 4000000+i FROM c;"
    echo "SELECT '  open transaction: ' || count(*) || ' rows' FROM t;"
    sleep 4
    echo "COMMIT;"
  ) | sqlite3 "$DIR/app.db" 2>/dev/null &
  sleep 2
  crash
  wait || true
  echo "after the crash:"
  if [ -e "$DIR/app.db" ]; then
    echo "  integrity_check: $(sqlite3 "$DIR/app.db" 'PRAGMA integrity_check;' 2>&1 | head -1)"
    echo "  rows: $(sqlite3 "$DIR/app.db" 'SELECT count(*) FROM t;' 2>&1 | head -1)"
  else
    echo "  app.db: missing"
  fi
  rm -rf "${DIR:?}"/*
done
