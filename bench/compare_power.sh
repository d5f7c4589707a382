#!/bin/sh
# rawio compare against dmc (issue 16, "Measured and tested"; results in docs/rawio.md,
# "Comparing runs"): in each of TRIALS seeded trials, three rawio runs of the same workload on a
# conditioned mount, each saved: A and A2 on the base profile, B on the base profile made
# SLOWDOWN percent slower with `dmc configure`. Then `rawio compare A A2` should say "no
# significant difference" and `rawio compare A B` "slower" (with exit 4). Prints one line per
# trial and the two counts; the goal is at least 19 of 20 each.
#
#   sudo bench/compare_power.sh [TRIALS] [SECONDS]     (default 20 trials of 8 s measured)
#   env: DMC, RAWIO (default build/dmc, build/rawio), SLOWDOWN (percent, default 10),
#        MIBS (the base profile's MiB/s, default 40)
#
# The workload: 16 psync workers reading 64 KiB at random from a 64 MiB file (O_DIRECT), on
# `dmc configure <mount> SSD 0 MIBS MIBS`: a device bound by its throughput, kept busy by 16
# commands queued, so that its rate is the model's (640 transfers/s at 40 MiB/s) whatever the
# load does to each reply's wake-up. The slower mount is MIBS * (1 - SLOWDOWN/100) MiB/s: each
# transfer takes 1/(1 - SLOWDOWN/100) as long, the rate is SLOWDOWN percent lower. Trial i runs A
# with --seed 1000+i, A2 with 2000+i and B with 3000+i (different offsets each), and compares with
# --seed i (the bootstrap). Needs root and python3.
set -eu

TRIALS=${1:-20}
SECONDS_EACH=${2:-8}
DMC=$(realpath "${DMC:-build/dmc}")
RAWIO=$(realpath "${RAWIO:-build/rawio}")
SLOWDOWN=${SLOWDOWN:-10}
MIBS=${MIBS:-40}
SLOW_MIBS=$(awk -v m="$MIBS" -v s="$SLOWDOWN" 'BEGIN { printf "%g", m * (1 - s / 100) }')
[ "$(id -u)" = 0 ] || { echo "compare_power.sh: needs root" >&2; exit 77; }
command -v python3 >/dev/null || { echo "compare_power.sh: needs python3" >&2; exit 77; }

WORK=$(mktemp -d /var/tmp/rawio-compare-power.XXXXXX)
export DISKCOND_STATE_DIR="$WORK/state" DISKCOND_RUN_DIR="$WORK/run"
export DISKCOND_PROFILE_DIR="$WORK/profiles"
mkdir -p "$WORK/cond" "$DISKCOND_STATE_DIR" "$DISKCOND_RUN_DIR" "$DISKCOND_PROFILE_DIR"
DB="$WORK/rawio.db"
cleanup() {
  "$DMC" stop "$WORK/cond" -force >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

dd if=/dev/urandom of="$WORK/cond/data" bs=1M count=64 status=none
"$DMC" start "$WORK/cond" 7 >/dev/null

# measure MIBS SEED ID: one saved run of the workload on the mount configured to MIBS MiB/s.
measure() {
  "$DMC" configure "$WORK/cond" SSD 0 "$1" "$1" >/dev/null
  "$RAWIO" -R -s 64k -p 16 -n 64m -t "${SECONDS_EACH}s" --warmup 500ms -d on --no-progress \
    --seed "$2" -i "$3" --save --db "$DB" "$WORK/cond/data" >/dev/null 2>"$WORK/err" ||
    { cat "$WORK/err" >&2; exit 1; }
}

# compare SEED A B: "<verdict>;<change>;<p>;<exit status>" of rawio compare A B.
compare() {
  code=0
  "$RAWIO" compare --db "$DB" --seed "$1" --json "$2" "$3" >"$WORK/cmp.json" || code=$?
  python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["tests"][0]
print("%s;%+.1f%%;%.2g;%s" % (t["verdict"], 100 * t["change"], t["p"], sys.argv[2]))' \
    "$WORK/cmp.json" "$code"
}

echo "rawio compare power: $TRIALS trials, ${SECONDS_EACH} s each, base $MIBS MiB/s," \
  "slower $SLOW_MIBS MiB/s ($SLOWDOWN% slower)"
echo "start: $(uptime)"
same_ok=0
slower_ok=0
for trial in $(seq 1 "$TRIALS"); do
  measure "$MIBS" $((1000 + trial)) "a$trial"
  measure "$MIBS" $((2000 + trial)) "a2_$trial"
  measure "$SLOW_MIBS" $((3000 + trial)) "b$trial"
  same=$(compare "$trial" "a$trial" "a2_$trial")
  slower=$(compare "$trial" "a$trial" "b$trial")
  case $same in "no significant difference;"*";0") same_ok=$((same_ok + 1)) ;; esac
  case $slower in "slower;"*";4") slower_ok=$((slower_ok + 1)) ;; esac
  echo "trial $trial: A vs A2: $same | A vs B: $slower"
done
echo "end: $(uptime)"
echo "same workload: $same_ok of $TRIALS no significant difference (exit 0)"
echo "$SLOWDOWN% slower: $slower_ok of $TRIALS slower (exit 4)"
