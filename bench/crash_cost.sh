#!/bin/sh
# What `dmc start -crashable` costs a buffered-write workload (docs/benchmarks.md, "Crash mode's
# cost"): fio 4 KiB random overwrites, buffered, one job, of a 64 MiB file laid out and synced
# first, on a write-back mount of profile 7, for each variant in turn, ROUNDS times alternately.
# Prints one line per run and the median IOPS per variant. Needs root and fio.
#
#   sudo bench/crash_cost.sh [ROUNDS] [SECONDS] [off:DMC | crashable:DMC]...
#   (default: 5 rounds of 10 s, variants off:build/dmc crashable:build/dmc)
# RW=write: sequential 4 KiB appends to a new file instead (nothing is overwritten, nothing laid
# out first).
set -eu

ROUNDS=${1:-5}
SECONDS_EACH=${2:-10}
RW=${RW:-randwrite}
shift 2 2>/dev/null || shift $#
VARIANTS=${*:-off:build/dmc crashable:build/dmc}
[ "$(id -u)" = 0 ] || { echo "crash_cost.sh: needs root" >&2; exit 77; }
command -v fio >/dev/null || { echo "crash_cost.sh: needs fio" >&2; exit 77; }

DIR=$(mktemp -d /var/tmp/dmc-crash-cost.XXXXXX)
OUT=$(mktemp /tmp/dmc-crash-cost.XXXXXX)
cleanup() {
  for v in $VARIANTS; do "${v#*:}" stop "$DIR" -force >/dev/null 2>&1 || true; done
  rm -rf "$DIR" "$OUT"
}
trap cleanup EXIT

uptime
for round in $(seq 1 "$ROUNDS"); do
  i=0
  for v in $VARIANTS; do
    i=$((i + 1))
    mode=${v%%:*}
    dmc=${v#*:}
    flag=
    [ "$mode" = crashable ] && flag=-crashable
    "$dmc" start "$DIR" 7 $flag >/dev/null
    size=1g
    if [ "$RW" = randwrite ]; then
      size=64m
      dd if=/dev/zero of="$DIR/f" bs=1M count=64 status=none
      "$dmc" sync "$DIR"
    fi
    iops=$(fio --name=w --filename="$DIR/f" --rw="$RW" --bs=4k --size=$size \
      --ioengine=psync --fallocate=none --time_based --runtime="$SECONDS_EACH" --randrepeat=0 \
      --output-format=terse --terse-version=3 | awk -F';' '{print $49}')
    "$dmc" stop "$DIR" >/dev/null
    rm -f "$DIR/f"
    echo "round $round variant $i ($v): $iops IOPS"
    echo "$i $iops" >>"$OUT"
  done
done
uptime
i=0
for v in $VARIANTS; do
  i=$((i + 1))
  median=$(awk -v k="$i" '$1 == k {print $2}' "$OUT" | sort -n |
    awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}')
  echo "median variant $i ($v): $median IOPS"
done
