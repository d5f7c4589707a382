#!/usr/bin/env bash
# Application workloads on a conditioned directory against the reference (issue 12).
#
#   bench/apps.sh [--quick] [--rounds N] [--profiles "0 2 3"] [--image-size SIZE] [--out FILE]
#
#   --profiles  the profiles to compare (indexes or names, space-separated; default "0 2 3")
#   --quick     a smaller tree and fewer transactions (about 10 minutes on the 2-core VM), 1 round
#               unless --rounds
#   --rounds N  rounds (default 3); reference and conditioned directory alternate in each round
#               and the report gives medians over rounds
#   --image-size SIZE  the reference disk's size (default: the backing file system's size, which
#               is the pretend device's capacity, so ext4's journal, inode tables and block
#               groups lie as far apart as on a disk of that size; made sparse, with lazy inode
#               table init and mounted noinit_itable, so it takes no time or space to make, and
#               no_prefetch_block_bitmaps, so no background bitmap reads follow each mount)
#   --out FILE  the report (default docs/apps.md); every round's figures go next to it, in
#               FILE without .md plus -rounds.tsv (round, place, workload, seconds, load average,
#               file pages the kernel had evicted and read again meanwhile: workingset_refault_file)
#   APPS_FILES, APPS_TXNS (environment) override the tree's file count and SQLite's transactions;
#   APPS_ONLY="git_clone git_status_cold" runs only those workloads (and untar where a cold step
#   needs its tree)
#   APPS_REFERENCE_BACKING=tmpfs (default) or disk: what lies under the reference's conditioned
#   directory (below)
#   APPS_DAMON=off (default) or keep: off stops the guest's DAMON kdamond (a page-out scheme for
#   memory not touched in a minute, found on the project's VMs) for the run and starts it again
#   at the end. Left on, it evicts the tree the cold read has just read, at random moments in
#   either place, and the cp -r after it reads the files again (measured 2026-12-04: profile 0,
#   128-653 refaults and 2.2-6.9 s per copy with it, none and 0.17-0.53 s without; docs/apps.md).
#   The per-round file's refaults column shows what reclaim made read again.
#
# The reference for "this disk under Linux" is ext4 on a loop device doing direct I/O over an image
# in a conditioned directory (`dmc disk create <dir>/ref.img ... -mkfs ext4 -mount`): the
# kernel's page cache, writeback, jbd2 and block merging above the same disk model. Each workload
# runs there and in the conditioned directory itself, with the same profile, one after the other.
# The reference's conditioned directory is a second mount, over a tmpfs as large as the backing
# file system (so the same pretend capacity): on the backing disk every flush ext4 sends its loop
# device became a real fsync of the image on this machine's disk (the untar with an fsync per file
# took 7.56 s in ext4 through the unconditioned mount, one round on 2026-12-02 00:38 UTC, against
# about 3 s of the Slow SSD model's time), a cost of the set-up, not of the disk the profile
# describes. APPS_REFERENCE_BACKING=disk puts the image in the
# conditioned directory itself, as until 2026-12-02.
# Also measured every round: the same workloads with conditioning off (`dmc configure <dir> SSD 0 0
# 0`: the mount's own cost), ext4 through that unconditioned mount, and native ext4 (the same loop
# device setup over an image on the backing file system, no FUSE at all). Needs root, build/dmc,
# fio, git, sqlite3, python3, tar, mkfs.ext4, losetup. Everything lives in one scratch directory
# under /var/tmp; mounts, loop devices and conditioning are undone on any exit, Ctrl-C included.
# It drops the page cache (echo 3 > /proc/sys/vm/drop_caches) before the cold workloads: on a
# shared machine that slows the others for a moment. A full run (3 rounds) takes 75 minutes to 3 hours, most of
# it on the HDD profiles; --quick about 10 minutes.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"

# shellcheck source=bench/suite/options.sh
source bench/suite/options.sh
PROFILES="0 2 3"
OUT=docs/apps.md
ARGS=("$@")
while (($#)); do
  case $1 in
    --profiles) PROFILES=${2:?--profiles needs a list}; shift ;;
    --profiles=*) PROFILES=${1#*=} ;;
    --image-size) IMG_SIZE=${2:?--image-size needs a size}; shift ;;
    --image-size=*) IMG_SIZE=${1#*=} ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *)
      common_option "$@"
      ((CONSUMED)) || { echo "apps: unknown option $1 (see --help)" >&2; exit 2; }
      shift $((CONSUMED - 1)) ;;
  esac
  shift
done
settle_rounds apps
read -r -a PROFILE_LIST <<<"$PROFILES"
((${#PROFILE_LIST[@]})) || { echo "apps: --profiles is empty" >&2; exit 2; }

((EUID == 0)) || { echo "apps: needs root (mounts, loop devices)" >&2; exit 3; }
PATH=$PATH:/usr/sbin:/sbin
for tool in fio git sqlite3 tar mkfs.ext4 losetup jq; do
  command -v "$tool" >/dev/null || { echo "apps: $tool is missing" >&2; exit 1; }
done
PY=/usr/bin/python3
[[ -x $PY ]] || PY=$(command -v python3) || { echo "apps: python3 is missing" >&2; exit 1; }
[[ -x build/dmc ]] || { echo "apps: build/dmc is missing; build first (./run.sh build)" >&2; exit 1; }
for p in "${PROFILE_LIST[@]}"; do
  build/dmc show "$p" >/dev/null 2>&1 || { echo "apps: unknown profile '$p' (see 'build/dmc list')" >&2; exit 2; }
done

FILES=${APPS_FILES:-2000}; TXNS=${APPS_TXNS:-500}; FIO_SIZE=64m; FIO_IO=16m
if ((QUICK)); then FILES=${APPS_FILES:-300}; TXNS=${APPS_TXNS:-100}; FIO_SIZE=16m; FIO_IO=2m; fi

APPS_DAMON=${APPS_DAMON:-off}
[[ $APPS_DAMON == keep || $APPS_DAMON == off ]] ||
  { echo "apps: APPS_DAMON must be keep or off, not '$APPS_DAMON'" >&2; exit 2; }

SCRATCH=$(mktemp -d /var/tmp/diskcond-apps.XXXXXX)
if [[ -z ${IMG_SIZE:-} ]]; then  # the backing file system's size, in whole MiB
  IMG_SIZE=$(( $(stat -f -c '%b * %S' "$SCRATCH") / 1048576 ))m
fi
REF_BACKING=${APPS_REFERENCE_BACKING:-tmpfs}
[[ $REF_BACKING == tmpfs || $REF_BACKING == disk ]] ||
  { echo "apps: APPS_REFERENCE_BACKING must be tmpfs or disk, not '$REF_BACKING'" >&2; exit 2; }
export DISKCOND_STATE_DIR=$SCRATCH/state
# shellcheck source=bench/suite/lib.sh
source bench/suite/lib.sh
log() { echo "apps: $*" >&2; }
CMD_LOG=$SCRATCH/commands
ROUNDS_OUT=${OUT%.md}-rounds.tsv  # every figure of every round, with the load average at its end
: >"$SCRATCH/rounds.tsv"
: >"$CMD_LOG"

COND=$SCRATCH/disk        # the conditioned directory: holds work/
REF_COND=$SCRATCH/refdisk # the reference's conditioned directory (over a tmpfs): holds ref.img
[[ $REF_BACKING == disk ]] && REF_COND=$COND
REF=$SCRATCH/ref          # ext4 on the loop device over $REF_COND/ref.img
NATIVE=$SCRATCH/native    # ext4 on a loop device over $SCRATCH/native.img (no FUSE)
TAR=$SCRATCH/tree.tar
SRC_REPO=$SCRATCH/src-repo

apps_cleanup() {
  local pid m f dev i
  for pid in $(descendants $$); do kill "$pid" 2>/dev/null || true; done
  # The ext4 mounts first (their loop devices hold the images open), then any loop device over an
  # image in the scratch directory, then what suite_cleanup undoes (dmc mounts, the directory).
  while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done < <(awk -v s="$SCRATCH" '$3 == "ext4" && index($2, s) == 1 { print $2 }' /proc/mounts | sort -r)
  for f in /sys/block/loop*/loop/backing_file; do
    [[ -f $f ]] || continue
    if [[ $(<"$f") == "$SCRATCH"/* ]]; then
      dev=${f#/sys/block/}; dev=/dev/${dev%%/*}
      losetup -d "$dev" 2>/dev/null || true
      for i in $(seq 1 100); do [[ -e /sys/block/${dev#/dev/}/loop ]] || break; sleep 0.05; done
    fi
  done
  suite_cleanup
  damon_restore
}
# DAMON: the kdamond under /sys/kernel/mm/damon/admin, stopped for the run with APPS_DAMON=off
DAMON_STATE=/sys/kernel/mm/damon/admin/kdamonds/0/state
DAMON_WAS=$(cat "$DAMON_STATE" 2>/dev/null || echo none)
damon_stopped() { [[ $APPS_DAMON == off && $DAMON_WAS == on ]]; }  # by this run
damon_note() {  # how the run found and left it, for the report
  if [[ $DAMON_WAS == none ]]; then echo "not present"
  elif damon_stopped; then echo "found on, stopped for the run"
  else echo "found $DAMON_WAS, left so"; fi
}
damon_restore() {
  damon_stopped || return 0
  echo on >"$DAMON_STATE" 2>/dev/null || log "could not start DAMON's kdamond again ($DAMON_STATE)"
}
trap 'apps_cleanup' EXIT
trap 'log "interrupted; cleaning up"; exit 130' INT TERM HUP
if damon_stopped; then echo off >"$DAMON_STATE"; fi

# The directory the workloads run in now; the report's command list calls it $D.
D_NOW=
shown() {  # shown LINE: the line as the report lists it
  local line=$1
  [[ -n $D_NOW ]] && line=${line//$D_NOW/\$D}
  line=${line//$SCRATCH/\$SCRATCH}
  echo "${line//$REPO\//}"
}
# record ARGS... (replaces lib.sh's): the command line for the report's list
record() {
  local line
  line=$(printf '%q ' "$@")
  shown "${line% }" >>"$CMD_LOG"
}
# note TEXT: a command line for the list, for pipelines and redirections `cmd` cannot run
note() { shown "$*" >>"$CMD_LOG"; }
# settle DIR: what the last workload left dirty goes to the disk, untimed
# (sync(1) does not reach a conditioned directory's daemon: `dmc sync` drains its write-back model)
settle() {
  sync -f "$1"
  "$DMC" sync "$COND"
  [[ $REF_COND == "$COND" ]] || "$DMC" sync "$REF_COND"
}
# condition VERB ARGS...: `dmc VERB <dir> ARGS...` for both conditioned directories (the same
# profile under the reference and the workloads)
condition() {
  cmd "$DMC" "$1" "$COND" "${@:2}" >/dev/null
  [[ $REF_COND == "$COND" ]] || cmd "$DMC" "$1" "$REF_COND" "${@:2}" >/dev/null
}
# cold DIR: settled, then nothing of any file system in the page cache or the inode cache
# An ext4 image (the reference, native ext4) is also unmounted and mounted again: right after a
# sync, jbd2 still pins the metadata buffers it has not checkpointed, so drop_caches leaves them
# in memory (measured: a "cold" find | stat of a just-written tree read nothing from the disk).
cold() {
  settle "$1"
  local dev=""
  case $1 in
    "$REF"*) dev=$ref_dev ;;
    "$NATIVE"*) dev=$native_dev ;;
  esac
  if [[ -n $dev ]]; then
    note "umount \$D && mount -o $EXT4_MOUNT_OPTIONS <its device> \$D (ext4 images only)"
    umount "${1%/}" && mount -o "$EXT4_MOUNT_OPTIONS" "$dev" "${1%/}"
  fi
  note "sync -f \$D && echo 3 > /proc/sys/vm/drop_caches"
  echo 3 >/proc/sys/vm/drop_caches
}
# timed KEY WORKLOAD COMMAND...: runs COMMAND; the wall-clock seconds go under KEY.WORKLOAD
# Every figure also goes to the per-round file kept next to the report (ROUNDS_OUT).
timed() {
  local key=$1 w=$2 t0 t1 secs=nan r0
  shift 2
  r0=$(refaults)
  t0=$(date +%s%N)
  if "$@"; then
    t1=$(date +%s%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }')
  else
    log "$key: $w failed"
  fi
  put "$key.$w" "$secs"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$ROUND" "$key" "$w" "$secs" "$(cut -d' ' -f1 /proc/loadavg)" \
    "$(($(refaults) - r0))" >>"$SCRATCH/rounds.tsv"
}
# refaults: file pages read again after the kernel evicted them, machine-wide (/proc/vmstat)
refaults() { awk '/^workingset_refault_file /{print $2}' /proc/vmstat; }

# --- the workloads; D is the directory they run in ---------------------------------------------

WORKLOADS=(untar untar_fsync read_cold cp_r stat_cold rm_rf git_clone git_status_cold sqlite_wal sqlite_delete fio_randwrite)
if [[ -n ${APPS_ONLY:-} ]]; then  # a subset, in the order above (the cold steps need their writers)
  only=()
  for w in "${WORKLOADS[@]}"; do [[ " $APPS_ONLY " == *" $w "* ]] && only+=("$w"); done
  for w in $APPS_ONLY; do
    [[ " ${WORKLOADS[*]} " == *" $w "* ]] || { echo "apps: APPS_ONLY: unknown workload '$w' (one of: ${WORKLOADS[*]})" >&2; exit 2; }
  done
  WORKLOADS=("${only[@]}")
  # The cold read, cp -r, cold stat and rm -rf work on the untarred tree.
  if [[ " ${WORKLOADS[*]} " =~ \ (read_cold|cp_r|stat_cold|rm_rf)\  && " ${WORKLOADS[*]} " != *" untar "* ]]; then
    WORKLOADS=(untar "${WORKLOADS[@]}")
  fi
fi
want() { [[ " ${WORKLOADS[*]} " == *" $1 "* ]]; }
declare -A LABEL=(
  [untar]="untar (tar -xf)"
  [untar_fsync]="untar, fsync every file"
  [read_cold]="cold read of every file"
  [cp_r]="cp -r of the tree"
  [stat_cold]="cold stat of every entry (find, xargs stat)"
  [rm_rf]="rm -rf of three trees"
  [git_clone]="git clone (local)"
  [git_status_cold]="cold git status"
  [sqlite_wal]="SQLite WAL, one-row transactions"
  [sqlite_delete]="SQLite DELETE journal, one-row transactions"
  [fio_randwrite]="fio buffered 4 KiB random writes, fsync"
)

w_untar() { cmd tar -xf "$TAR" -C "$1/a"; }
w_untar_fsync() { cmd "$PY" bench/apps/untar_fsync.py "$TAR" "$1/b"; }
w_read_cold() {
  note "find \$D/a -type f -print0 | xargs -0 cat > /dev/null"
  find "$1/a" -type f -print0 | xargs -0 cat >/dev/null
}
w_cp_r() { cmd cp -r "$1/a" "$1/c"; }
w_stat_cold() {
  note "find \$D/a -print0 | xargs -0 stat > /dev/null"
  find "$1/a" -print0 | xargs -0 stat >/dev/null
}
w_rm_rf() { cmd rm -rf "$1/a" "$1/b" "$1/c"; }
w_git_clone() { cmd git clone -q --no-hardlinks "$SRC_REPO" "$1/repo"; }
w_git_status() { cmd git -C "$1/repo" status --porcelain >/dev/null; }
w_sqlite() {  # w_sqlite DB
  note "sqlite3 $1 < \$SCRATCH/txns.sql"
  sqlite3 "$1" <"$SCRATCH/txns.sql" >/dev/null
}
w_fio() {
  run_fio "$SCRATCH/out/fio.json" --name=randwrite --filename="$1/fio.dat" --size="$FIO_SIZE" --io_size="$FIO_IO" \
    --rw=randwrite --bs=4k --ioengine=psync --end_fsync=1 --randrepeat=0 --randseed=7
}

run_workloads() {  # run_workloads KEY DIR
  local key=$1 d=$2
  D_NOW=$d
  log "round $ROUND: $key"
  mkdir -p "$d/a" "$d/b"
  settle "$d"
  if want untar; then timed "$key" untar w_untar "$d"; settle "$d"; fi
  if want untar_fsync; then timed "$key" untar_fsync w_untar_fsync "$d"; settle "$d"; fi
  if want read_cold; then cold "$d"; timed "$key" read_cold w_read_cold "$d"; fi
  if want cp_r; then timed "$key" cp_r w_cp_r "$d"; settle "$d"; fi
  if want stat_cold; then cold "$d"; timed "$key" stat_cold w_stat_cold "$d"; fi
  if want rm_rf; then timed "$key" rm_rf w_rm_rf "$d"; settle "$d"; fi
  rm -rf "$d/a" "$d/b" "$d/c"
  if want git_clone || want git_status_cold; then
    timed "$key" git_clone w_git_clone "$d"; settle "$d"
    # A developer's index, not a fresh clone's: git re-reads every file whose mtime is in the
    # index's own second (racily clean), which after a clone that took under a second (ext4)
    # is every file and after a slower one (the mount's own round trips) only the last second's.
    # A status a second later rewrites the index, so the cold status below stats every file and
    # reads none, in both places.
    note "sleep 1.1; git -C \$D/repo status --porcelain (warm, not timed)"
    sleep 1.1; git -C "$d/repo" status --porcelain >/dev/null; settle "$d"
    if want git_status_cold; then cold "$d"; timed "$key" git_status_cold w_git_status "$d"; fi
    rm -rf "$d/repo"
  fi
  local mode
  for mode in wal delete; do
    want "sqlite_$mode" || continue
    note "sqlite3 \$D/$mode.db 'PRAGMA journal_mode=${mode^^}; CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);'"
    sqlite3 "$d/$mode.db" "PRAGMA journal_mode=${mode^^}; CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);" >/dev/null
  done
  settle "$d"
  if want sqlite_wal; then timed "$key" sqlite_wal w_sqlite "$d/wal.db"; settle "$d"; fi
  if want sqlite_delete; then timed "$key" sqlite_delete w_sqlite "$d/delete.db"; settle "$d"; fi
  if want fio_randwrite; then
    cmd fio --name=layout --filename="$d/fio.dat" --size="$FIO_SIZE" --rw=write --bs=1m --create_only=1 >/dev/null
    settle "$d"
    timed "$key" fio_randwrite w_fio "$d"; settle "$d"
  fi
  rm -rf "$d/wal.db" "$d/delete.db" "$d/fio.dat"
  settle "$d"
  D_NOW=
}

# --- set-up -------------------------------------------------------------------------------------

started=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$SCRATCH/out" "$DISKCOND_STATE_DIR" "$COND" "$REF" "$NATIVE"
log "making a tree of $FILES files, its tarball and a git repository of it"
cmd "$PY" bench/apps/make_tree.py "$SCRATCH/tree" "$FILES"
# Sorted by name, as reproducible tarballs are: extracting it creates files in name order, while
# ext4 lists a directory in hash order (seeded per file system). Unsorted, the archive would hold
# the source file system's hash order, which on the backing file system (the same one) is also
# its listing order: reads in listing order would be reads in creation order there only.
cmd tar --sort=name -cf "$TAR" -C "$SCRATCH/tree" .
git init -q "$SRC_REPO"
cp -r "$SCRATCH/tree/." "$SRC_REPO/"
git -C "$SRC_REPO" add -A
git -C "$SRC_REPO" -c user.name=apps -c user.email=apps@localhost commit -q -m tree
git -C "$SRC_REPO" repack -adq
{
  echo "PRAGMA synchronous=FULL;"
  for i in $(seq 1 "$TXNS"); do echo "BEGIN; INSERT INTO t(v) VALUES('row $i of the diskcond apps benchmark'); COMMIT;"; done
} >"$SCRATCH/txns.sql"
tree_mib=$(du -sm --apparent-size "$SCRATCH/tree" | cut -f1)

# The reference: made while the directory is unconditioned (mkfs is quick either way), then each
# profile is selected live.
if [[ $REF_COND != "$COND" ]]; then
  mkdir -p "$REF_COND"
  cmd mount -t tmpfs -o "size=$IMG_SIZE" tmpfs "$REF_COND"
fi
condition configure SSD 0 0 0
dmc_start "$COND"
[[ $REF_COND == "$COND" ]] || dmc_start "$REF_COND"
MKFS_OPTIONS=(-F -q -b 4096 -E lazy_itable_init=1,lazy_journal_init=1,nodiscard)
# no_prefetch_block_bitmaps: after every mount ext4 otherwise reads one block bitmap per flex group
# in the background (126 reads on the default image, 4 s of a 5400 rpm disk's time), which would
# compete with the workload after each cold() remount; a machine whose caches are dropped does not
# do that. Measured with block_rq_issue: a cold read of the 300-file tree issued 301 data + 18
# metadata + 127 bitmap reads (10.4 s) with it, 301 + 18 (6.2 s) without.
EXT4_MOUNT_OPTIONS=noinit_itable,no_prefetch_block_bitmaps
ref_dev=$(cmd "$DMC" disk create "$REF_COND/ref.img" "$IMG_SIZE")
# A new file system every round: ext4 puts each top-level directory (the workloads' a, b, c, repo)
# in a block group chosen by a hash of its name under the file system's random seed, so how far
# a workload's files lie from the journal (mid-disk), which decides an fsync's two seeks on an
# HDD, is a draw per mkfs; medians over rounds then take the typical draw, not one.
make_reference() {
  if mountpoint -q "$REF"; then cmd umount "$REF"; fi
  cmd mkfs.ext4 "${MKFS_OPTIONS[@]}" "$ref_dev"
  cmd mount -o "$EXT4_MOUNT_OPTIONS" "$ref_dev" "$REF"
}
# The unconditioned rows measure the mount's own cost per operation. A conditioned mount keeps
# idle CPUs polling while its traffic flows (docs/conditioner.md "Idle CPUs"), one with
# conditioning off leaves the machine's idle policy alone; so that goal_ratio compares like with
# like, the unconditioned rows run with the same request held by this script, where the mounts
# take it (root, DISKCOND_IDLE_POLL not off). Native ext4 runs as the machine is.
IDLE_POLL_HOLDER=
idle_poll_on() {
  mounts_poll_idle_cpus || return 0
  python3 -c 'import os, struct, time
fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
os.write(fd, struct.pack("i", 0))
time.sleep(1e6)' &
  IDLE_POLL_HOLDER=$!
}
idle_poll_off() {
  [[ -n $IDLE_POLL_HOLDER ]] || return 0
  kill "$IDLE_POLL_HOLDER" 2>/dev/null || true
  wait "$IDLE_POLL_HOLDER" 2>/dev/null || true
  IDLE_POLL_HOLDER=
}
make_reference
mkdir -p "$COND/work"
# Native ext4: the same loop device setup over an image on the backing file system.
cmd truncate -s "$IMG_SIZE" "$SCRATCH/native.img"
native_dev=$(cmd losetup --direct-io=on --sector-size 4096 --find --show "$SCRATCH/native.img")
cmd mkfs.ext4 "${MKFS_OPTIONS[@]}" "$native_dev"
cmd mount -o "$EXT4_MOUNT_OPTIONS" "$native_dev" "$NATIVE"

# --- rounds -------------------------------------------------------------------------------------

for ROUND in $(seq 1 "$ROUNDS"); do
  ((ROUND == 1)) || { condition configure SSD 0 0 0; make_reference; }
  run_workloads native "$NATIVE"
  condition configure SSD 0 0 0
  idle_poll_on
  if ((ROUND % 2)); then
    run_workloads floor.ref "$REF"; run_workloads floor.dir "$COND/work"
  else
    run_workloads floor.dir "$COND/work"; run_workloads floor.ref "$REF"
  fi
  idle_poll_off
  for p in "${PROFILE_LIST[@]}"; do
    condition select "$p"
    if ((ROUND % 2)); then
      run_workloads "ref.$p" "$REF"; run_workloads "dir.$p" "$COND/work"
    else
      run_workloads "dir.$p" "$COND/work"; run_workloads "ref.$p" "$REF"
    fi
    # The mount's own cost again, in the same minutes as this profile's rows (goal_ratio): on a
    # shared machine the load of another minute made it slower than the conditioned directory.
    condition configure SSD 0 0 0
    idle_poll_on
    run_workloads "floor.dir.$p" "$COND/work"
    idle_poll_off
  done
done
elapsed=$(($(date +%s) - started))
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report -------------------------------------------------------------------------------------

secs() { fig "$1" 2 " s"; }
ratio() { is_num "$1" && echo "$(fmt "$1" 2)x" || echo "-"; }
geomean() {  # numbers on stdin -> their geometric mean
  awk '$1 > 0 { s += log($1); n++ } END { if (n) printf "%.4f\n", exp(s / n); else print "nan" }'
}
in_band() { ge "$1" 0.67 && le "$1" 1.5; }
# goal_ratio PROFILE WORKLOAD: the ratio the goal is judged on. Issue 12: where the unconditioned
# directory alone already takes longer than the reference (a small untar into the page cache), the
# mount's own cost decides the row, so the conditioned directory is compared with that time.
# The unconditioned time is the one measured right after the profile's own rows in each round
# (floor.dir.PROFILE), and the ratio is the median of the per-round ratios, as for the reference.
goal_ratio() {
  local ref floor dir
  ref=$(med "ref.$1.$2"); floor=$(med "floor.dir.$1.$2"); dir=$(med "dir.$1.$2")
  if is_num "$ref" && is_num "$floor" && is_num "$dir" && ! le "$floor" "$ref"; then
    paired "dir.$1.$2" "floor.dir.$1.$2"
  else
    paired "dir.$1.$2" "ref.$1.$2"
  fi
}
in_geo() { ge "$1" 0.8 && le "$1" 1.25; }
# The disk model's own time, per round: KEY's seconds minus BASE's (the same workloads with
# conditioning off), one line per round.
added() { paste <(vals "$1") <(vals "$2") | awk '$1 != "nan" && $2 != "nan" { print $1 - $2 }'; }
MIN_MODEL_S=0.2  # below this the difference of two noisy figures says nothing
# model_ratio PROFILE WORKLOAD: the median model time in the conditioned directory (dir - floor.dir)
# over the median under ext4 (ref - floor.ref); "nan" when the reference's is under MIN_MODEL_S.
model_ratio() {
  local d r
  d=$(added "dir.$1.$2" "floor.dir.$1.$2" | median); r=$(added "ref.$1.$2" "floor.ref.$2" | median)
  ge "$r" "$MIN_MODEL_S" && calc "$d / $r" || echo nan
}

{
  echo "# Applications on a conditioned directory against the reference"
  echo
  if ((QUICK)); then
    echo "> **Quick run** (\`--quick\`: $FILES files, $TXNS transactions, $ROUNDS round(s)) on a shared 2-core VM:"
    echo "> the other engineers' builds ran at the same time (load average below), so single figures"
    echo "> wander; the ratios, taken between runs of the same minute, matter more than the seconds."
    echo
  fi
  echo "Generated by \`bench/apps.sh${ARGS[*]:+ ${ARGS[*]}}\` (issue 12). The reference for \"this disk under"
  echo "Linux\" is ext4 on a loop device doing direct I/O (4 KiB blocks) over an image file in a"
  echo "conditioned directory (\`dmc disk create\`): the kernel's page cache, writeback, jbd2 journal, block"
  echo "merging and ext4's allocator above the disk model. Each workload runs there and in the"
  echo "conditioned directory itself, same profile, one after the other (the order"
  if [[ $REF_BACKING == tmpfs ]]; then
    echo "alternates by round). The reference's conditioned directory is a second mount over a tmpfs"
    echo "as large as the backing file system (the same pretend capacity), so the flushes ext4 sends its"
    echo "loop device cost what the profile says and not also a real fsync of the image on this"
    echo "machine's disk (\`APPS_REFERENCE_BACKING=disk\` puts the image in the conditioned directory"
    echo "itself); figures are medians over rounds of wall-clock seconds, ratios are"
  else
    echo "alternates by round; the image lies in the conditioned directory itself, so every flush of"
    echo "the loop device is also a real fsync on this machine's disk); figures are medians over rounds of"
    echo "wall-clock seconds, ratios are"
  fi
  echo "conditioned directory / reference (median of the per-round ratios). Goal (issue 12): every"
  echo "ratio within 0.67x-1.5x, the geometric mean within 0.8-1.25. Where the unconditioned directory"
  echo "alone takes longer than the reference, the goal ratio compares with that time instead (the"
  echo "mount's own cost per operation is not the disk model's; both figures are shown), measured"
  echo "right after the profile's own rows in each round (\`configure SSD 0 0 0\`)$(mounts_poll_idle_cpus && echo ", with idle CPUs held polling as the conditioned mount holds them while its traffic flows")."
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| Date | $(date -u +%Y-%m-%dT%H:%MZ) |"
  echo "| Kernel | $(uname -r) |"
  echo "| Cores | $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')) |"
  echo "| Load average at start / end | $load_start / $load_end (shared machine: other builds and tests ran) |"
  echo "| Commit | $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)') |"
  echo "| Tree | $FILES files, $tree_mib MiB, $(find "$SCRATCH/tree" -type d | wc -l) directories (bench/apps/make_tree.py) |"
  echo "| SQLite | $TXNS one-row transactions, synchronous=FULL, $(sqlite3 --version | cut -d' ' -f1) |"
  echo "| fio | $(fio --version): $FIO_IO of 4 KiB random writes in a $FIO_SIZE file, psync, then fsync |"
  echo "| Reference backing | $REF_BACKING (\`APPS_REFERENCE_BACKING\`) |"
  echo "| DAMON page-out (the guest's kdamond) | $(damon_note) (\`APPS_DAMON\`) |"
  echo "| Images | $IMG_SIZE (sparse), ext4 made with \`mkfs.ext4 ${MKFS_OPTIONS[*]}\`, mounted \`$EXT4_MOUNT_OPTIONS\` |"
  echo "| Rounds | $ROUNDS (each round's figures: \`$(basename "$ROUNDS_OUT")\`) |"
  echo "| Duration | $((elapsed / 60)) min $((elapsed % 60)) s |"
  echo
  echo "## Summary"
  echo
  echo "| Profile | Rows within 0.67x-1.5x | Geometric mean of ratios | Goal 0.8-1.25 |"
  echo "|---|---|---|---|"
  for p in "${PROFILE_LIST[@]}"; do
    name=$("$DMC" show "$p" -json | jq -r .profile.name)
    n_ok=0; n=0; : >"$SCRATCH/ratios.$p"
    for w in "${WORKLOADS[@]}"; do
      r=$(goal_ratio "$p" "$w")
      if is_num "$r"; then n=$((n + 1)); echo "$r" >>"$SCRATCH/ratios.$p"; in_band "$r" && n_ok=$((n_ok + 1)); fi
    done
    gm=$(geomean <"$SCRATCH/ratios.$p")
    echo "| $p: $name | $n_ok of $n | $(ratio "$gm") | $(mark in_geo "$gm") |"
  done
  echo
  for p in "${PROFILE_LIST[@]}"; do
    name=$("$DMC" show "$p" -json | jq -r .profile.name)
    echo "## Profile $p: $name"
    echo
    echo "| Workload | Reference: ext4 on the disk | Conditioned directory | Ratio | Unconditioned directory | Unconditioned / reference | Goal ratio | 0.67x-1.5x |"
    echo "|---|---|---|---|---|---|---|---|"
    for w in "${WORKLOADS[@]}"; do
      ref=$(med "ref.$p.$w"); dir=$(med "dir.$p.$w"); r=$(paired "dir.$p.$w" "ref.$p.$w")
      floor=$(med "floor.dir.$p.$w"); fr=$(is_num "$floor" && is_num "$ref" && calc "$floor / $ref" || echo nan)
      g=$(goal_ratio "$p" "$w")
      verdict=$(is_num "$g" && mark in_band "$g" || echo "-")
      echo "| ${LABEL[$w]} | $(secs "$ref") | $(secs "$dir") | $(ratio "$r") | $(secs "$floor") | $(ratio "$fr") | $(ratio "$g") | $verdict |"
    done
    echo "| **Geometric mean** | | | | | | **$(ratio "$(geomean <"$SCRATCH/ratios.$p")")** | goal 0.8-1.25 |"
    echo
  done
  echo "## The model's time alone"
  echo
  echo "Another view of the same runs, not the issue's goal: the time the disk model added in each"
  echo "place, per round - the conditioned directory minus the unconditioned directory, and the"
  echo "reference minus the same ext4 through the unconditioned mount (medians over rounds) - and"
  echo "the ratio of the two medians. It leaves out each side's own cost per operation (the mount's round"
  echo "trips, which come on top of the model's time in the conditioned directory; the loop device's"
  echo "round trips and, on a disk backing, the image's real fsyncs), so it shows whether the model prices the work ext4 sends it as"
  echo "ext4 would. \"-\" where the reference's model time is under $MIN_MODEL_S s (a difference of two"
  echo "noisy figures)."
  echo
  echo "| Workload | $(for p in "${PROFILE_LIST[@]}"; do printf '%s: reference / conditioned / ratio | ' "$p"; done | sed 's/ | $//') |"
  echo "|---|$(for p in "${PROFILE_LIST[@]}"; do printf -- '---|'; done)"
  for w in "${WORKLOADS[@]}"; do
    row="| ${LABEL[$w]} |"
    for p in "${PROFILE_LIST[@]}"; do
      mr=$(added "ref.$p.$w" "floor.ref.$w" | median); md=$(added "dir.$p.$w" "floor.dir.$p.$w" | median)
      row+=" $(secs "$mr") / $(secs "$md") / $(ratio "$(model_ratio "$p" "$w")") |"
    done
    echo "$row"
  done
  echo
  echo "## Without conditioning"
  echo
  echo "What the workloads cost with no disk model in the way: native ext4 (loop device, direct I/O,"
  echo "over an image on the backing file system, no FUSE), the reference's ext4 with its directory"
  echo "unconditioned (\`configure SSD 0 0 0\`: the FUSE round trips of the loop device's I/O), and"
  echo "the unconditioned directory itself (the mount's own cost per operation). Where the"
  echo "unconditioned directory alone is above 1.5x a profile's reference (last column of that"
  echo "profile's table), the mount's own overhead, not the model, decides the row."
  echo
  echo "| Workload | Native ext4 | ext4 through the unconditioned mount | Unconditioned directory | Unconditioned directory / native ext4 |"
  echo "|---|---|---|---|---|"
  for w in "${WORKLOADS[@]}"; do
    echo "| ${LABEL[$w]} | $(secs "$(med "native.$w")") | $(secs "$(med "floor.ref.$w")") | $(secs "$(med "floor.dir.$w")") | $(ratio "$(paired "floor.dir.$w" "native.$w")") |"
  done
  echo
  cat bench/apps/notes.md
  commands_block "Commands run (\$D is the directory under test; the measuring ones run once per round and configuration)"
} >"$SCRATCH/report.md"
mv "$SCRATCH/report.md" "$OUT"
{ printf 'round\tplace\tworkload\tseconds\tload1\trefaults\n'; cat "$SCRATCH/rounds.tsv"; } >"$ROUNDS_OUT"
log "wrote $OUT in $((elapsed / 60)) min $((elapsed % 60)) s"
