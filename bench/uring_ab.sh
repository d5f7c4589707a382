#!/bin/bash
# FUSE over io_uring A/B (issue 18 item 3): the 4 KiB QD1 read round trip of an unconditioned
# mount (`dmc configure DIR SSD 0 0 0`) with DISKCOND_FUSE_URING off and on, alternating, ROUNDS
# rounds each (default 3), fio randread 4k --direct=1 psync for 10 s on a 256 MiB file; prints one
# line per run and the medians (p50 and mean completion latency, IOPS). QD > 1 (4th argument) runs
# libaio at that depth instead of psync. Needs root: it turns the fuse module's enable_uring on for
# the runs and puts back what it found. DIR must not be mounted.
#   bench/uring_ab.sh build/dmc /var/tmp/uring_ab [ROUNDS [QD]]      (RUNTIME=s: not 10 s a run)
set -euo pipefail
DMC=$1; DIR=$2; ROUNDS=${3:-3}; QD=${4:-1}
ENGINE="--ioengine=psync"
[ "$QD" -gt 1 ] && ENGINE="--ioengine=libaio --iodepth=$QD"
PARAM=/sys/module/fuse/parameters/enable_uring
before=$(cat $PARAM)
trap 'echo "$before" > $PARAM; $DMC stop "$DIR" -force >/dev/null 2>&1 || true' EXIT
echo Y > $PARAM
mkdir -p "$DIR"
[ -f "$DIR/f" ] || head -c 256M /dev/urandom > "$DIR/f"
$DMC configure "$DIR" SSD 0 0 0 >/dev/null
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
run() {  # $1: off|on; prints "p50_us iops mean_us"
  if [ "$1" = on ]; then DISKCOND_FUSE_URING=1 $DMC start "$DIR" >/dev/null; else $DMC start "$DIR" >/dev/null; fi
  fio --name=qd1 --filename="$DIR/f" --rw=randread --bs=4k --direct=1 $ENGINE \
      --runtime=${RUNTIME:-10} --time_based --size=256m --output-format=json |
    python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]["read"]
c=j["clat_ns"]
print("%.1f %.0f %.1f" % (c["percentile"]["50.000000"] / 1000, j["iops"], c["mean"] / 1000))'
  $DMC stop "$DIR" >/dev/null
}
uptime
results_off=""; results_on=""
for r in $(seq "$ROUNDS"); do
  for knob in off on; do
    line=$(run $knob)
    echo "round $r uring=$knob: p50 $(echo "$line" | cut -d' ' -f1) us," \
         "mean $(echo "$line" | cut -d' ' -f3) us, $(echo "$line" | cut -d' ' -f2) IOPS"
    if [ $knob = on ]; then results_on+="$line"$'\n'; else results_off+="$line"$'\n'; fi
  done
done
uptime
for knob in off on; do
  lines=$([ $knob = on ] && printf %s "$results_on" || printf %s "$results_off")
  echo "median uring=$knob: p50 $(echo "$lines" | awk 'NF {print $1}' | median) us," \
       "mean $(echo "$lines" | awk 'NF {print $3}' | median) us," \
       "$(echo "$lines" | awk 'NF {print $2}' | median) IOPS"
done
