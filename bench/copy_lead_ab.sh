#!/usr/bin/env bash
# A/B of two dmc builds at queue depth 1 (issue 18 item 1, the copy lead; docs/benchmarks.md):
# fio --direct=1 --ioengine=psync --iodepth=1 1 MiB read, 1 MiB write and 4 KiB randread, 5 s
# each after 1 s of ramp, the builds alternating in every round on one scratch directory; then
# the never-faster check: 1 MiB read and 4 KiB randread with --thinktime=100 and 500 us (fastest
# and p50 clat, to compare with the model's time, `dmc predict`).
#
#   bench/copy_lead_ab.sh BEFORE_DMC AFTER_DMC ROUNDS PROFILE...
#
# Needs root, /dev/fuse and fio. Prints one line per run with the load average; the scratch
# directory (/var/tmp/copy_lead_ab.XXXXXX, a 256 MiB file) is removed at the end.
set -u
if [[ $# -lt 4 || $1 == -h || $1 == --help ]]; then sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 2; fi
declare -A BIN=([before]=$1 [after]=$2)
rounds=$3; shift 3
D=$(mktemp -d /var/tmp/copy_lead_ab.XXXXXX)
export DISKCOND_STATE_DIR=$D/state
mkdir -p $D/mnt $DISKCOND_STATE_DIR
cleanup() {
  local side
  for side in before after; do "${BIN[$side]}" stop "$D/mnt" >/dev/null 2>&1; done
  rm -rf "$D"
}
trap cleanup EXIT
dd if=/dev/urandom of=$D/mnt/f bs=1M count=256 status=none && sync
run() {  # run DIRECTION FIO_ARGS...: one fio job, its figures
  local dir=$1; shift
  fio --name=t --filename=$D/mnt/f --size=256m "$@" --direct=1 --ioengine=psync --iodepth=1 \
    --time_based --output-format=json 2>/dev/null |
    python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0][sys.argv[1]]; c=j["clat_ns"]; print("%9.1f IOPS %8.1f MiB/s clat min %8.1f p50 %8.1f mean %8.1f us" % (j["iops"], j["bw_bytes"]/1048576, c["min"]/1e3, c["percentile"]["50.000000"]/1e3, c["mean"]/1e3))' "$dir"
}
for p in "$@"; do
  for r in $(seq 1 "$rounds"); do
    for side in before after; do
      ${BIN[$side]} start $D/mnt "$p" >/dev/null || exit 1
      for job in "read --bs=1m" "write --bs=1m" "randread --bs=4k"; do
        set -- $job; dir="read"; [[ $1 == write ]] && dir="write"
        echo "p$p round $r $side $*: $(run $dir --rw=$1 $2 --runtime=5 --ramp_time=1) (load $(cut -d' ' -f1 /proc/loadavg))"
      done
      ${BIN[$side]} stop $D/mnt >/dev/null
    done
  done
  for side in before after; do
    ${BIN[$side]} start $D/mnt "$p" >/dev/null || exit 1
    run read --rw=read --bs=1m --runtime=1 >/dev/null  # warm-up
    for think in 100 500; do
      for job in "read --bs=1m" "randread --bs=4k"; do
        set -- $job
        echo "p$p $side think $think $*: $(run read --rw=$1 $2 --thinktime=$think --runtime=4) (load $(cut -d' ' -f1 /proc/loadavg))"
      done
    done
    ${BIN[$side]} stop $D/mnt >/dev/null
  done
done
