#!/usr/bin/env bash
# rawio_vs_fio.sh: runs rawio and fio side by side on the same file and workload, alternately,
# for several rounds, and prints median IOPS and the rawio/fio ratio for each workload; then
# compares the cost per transfer of rawio's null engine with fio's (`--ioengine=null`).
#
# Workloads: random read, O_DIRECT, one worker / one job, psync and io_uring, queue depth 1 and
# 32, 4 KiB and 1 MiB transfers. (psync is synchronous in both tools: its QD32 runs as QD1.)
#
# Usage: bench/rawio_vs_fio.sh [-r ROUNDS] [-t SECONDS] [-f FILE] [-s SIZE] [-b RAWIO_BINARY]
#   defaults: 3 rounds, 3 s per run, /tmp/rawio_vs_fio.dat (made and removed if absent), 1g.
set -euo pipefail

ROUNDS=3
SECONDS_PER_RUN=3
FILE=/tmp/rawio_vs_fio.dat
SIZE=1g
RAWIO=${RAWIO:-$(dirname "$0")/../build/rawio}
while getopts "r:t:f:s:b:h" opt; do
  case $opt in
    r) ROUNDS=$OPTARG ;;
    t) SECONDS_PER_RUN=$OPTARG ;;
    f) FILE=$OPTARG ;;
    s) SIZE=$OPTARG ;;
    b) RAWIO=$OPTARG ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
  esac
done
command -v fio >/dev/null || { echo "rawio_vs_fio: fio not found" >&2; exit 1; }
[ -x "$RAWIO" ] || { echo "rawio_vs_fio: $RAWIO not built" >&2; exit 1; }

MADE_FILE=0
if [ ! -f "$FILE" ]; then
  SIZE_MB=$(( $(numfmt --from=iec "${SIZE^^}") / 1048576 ))
  echo "making ${SIZE_MB} MiB test file $FILE" >&2
  dd if=/dev/urandom of="$FILE" bs=1M count="$SIZE_MB" status=none conv=fsync
  MADE_FILE=1
fi
RESULTS=$(mktemp -d)
cleanup() { rm -rf "$RESULTS"; [ "$MADE_FILE" = 1 ] && rm -f "$FILE"; return 0; }
trap cleanup EXIT

json_field() {  # json_field FILE PYTHON-EXPRESSION-ON-j (fio may print notes before its JSON)
  python3 -c "import json,sys; s=open(sys.argv[1]).read(); j=json.loads(s[s.index('{'):]); print($2)" "$1"
}

run_fio() {  # run_fio ENGINE QD BS OUT
  fio --name=rr --filename="$FILE" --size="$SIZE" --rw=randread --bs="$3" --direct=1 \
      --ioengine="$1" --iodepth="$2" --numjobs=1 --time_based --runtime="$SECONDS_PER_RUN" \
      --output-format=json >"$4"
  json_field "$4" "j['jobs'][0]['read']['iops']"
}

run_rawio() {  # run_rawio ENGINE QD BS OUT
  "$RAWIO" -R --no-progress --json -e "$1" -q "$2" -s "$3" -p 1 -n "$SIZE" \
      -t "${SECONDS_PER_RUN}s" -c 1000000000000 "$FILE" >"$4" 2>/dev/null
  json_field "$4" "j['targets'][0]['tests'][0]['transfers_per_sec']"
}

CONFIGS=("psync 1 4k" "psync 32 4k" "psync 1 1m" "psync 32 1m"
         "io_uring 1 4k" "io_uring 32 4k" "io_uring 1 1m" "io_uring 32 1m")

for round in $(seq 1 "$ROUNDS"); do
  for cfg in "${CONFIGS[@]}"; do
    set -- $cfg
    key="$1-qd$2-$3"
    # Alternate which tool goes first, so drift in the machine hits both alike.
    if (( round % 2 )); then
      run_fio "$1" "$2" "$3" "$RESULTS/f.json" >>"$RESULTS/$key.fio"
      run_rawio "$1" "$2" "$3" "$RESULTS/r.json" >>"$RESULTS/$key.rawio"
    else
      run_rawio "$1" "$2" "$3" "$RESULTS/r.json" >>"$RESULTS/$key.rawio"
      run_fio "$1" "$2" "$3" "$RESULTS/f.json" >>"$RESULTS/$key.fio"
    fi
  done
  echo "round $round done" >&2
done

# Null engines: what each tool costs per transfer when no I/O is done (QD1, 4 KiB, one job).
for round in $(seq 1 "$ROUNDS"); do
  fio --name=null --ioengine=null --size="$SIZE" --rw=randread --bs=4k --iodepth=1 --numjobs=1 \
      --time_based --runtime="$SECONDS_PER_RUN" --output-format=json >"$RESULTS/fn.json"
  json_field "$RESULTS/fn.json" "'%f %f' % (j['jobs'][0]['read']['iops'], (j['jobs'][0]['usr_cpu'] + j['jobs'][0]['sys_cpu']))" >>"$RESULTS/null.fio"
  "$RAWIO" -R --no-progress --json -e null -q 1 -s 4k -p 1 -n "$SIZE" -t "${SECONDS_PER_RUN}s" \
      -c 1000000000000 "$FILE" >"$RESULTS/rn.json" 2>/dev/null
  json_field "$RESULTS/rn.json" "'%f %f' % (j['targets'][0]['tests'][0]['transfers_per_sec'], j['targets'][0]['tests'][0]['cpu']['total_percent'])" >>"$RESULTS/null.rawio"
done

python3 - "$RESULTS" "$ROUNDS" "$SECONDS_PER_RUN" <<'PY'
import statistics, sys, os
d, rounds, secs = sys.argv[1], sys.argv[2], sys.argv[3]
def vals(path):
    return [[float(x) for x in line.split()] for line in open(path) if line.strip()]
print(f"rawio vs fio: random read, O_DIRECT, 1 worker/job, {rounds} rounds x {secs} s, medians")
print("(rawio/fio: ratio of the medians; paired: median of each round's rawio/fio, the two runs")
print(" of a round being back to back, which cancels most drift of a shared machine)")
print(f"{'workload':<20}{'fio IOPS':>12}{'rawio IOPS':>12}{'rawio/fio':>11}{'paired':>8}   rounds (fio | rawio)")
for cfg in ["psync-qd1-4k", "psync-qd32-4k", "psync-qd1-1m", "psync-qd32-1m",
            "io_uring-qd1-4k", "io_uring-qd32-4k", "io_uring-qd1-1m", "io_uring-qd32-1m"]:
    f = [v[0] for v in vals(os.path.join(d, cfg + ".fio"))]
    r = [v[0] for v in vals(os.path.join(d, cfg + ".rawio"))]
    mf, mr = statistics.median(f), statistics.median(r)
    paired = statistics.median([b / a for a, b in zip(f, r)])
    rounds_text = " ".join(f"{x:.0f}" for x in f) + " | " + " ".join(f"{x:.0f}" for x in r)
    print(f"{cfg:<20}{mf:>12.0f}{mr:>12.0f}{mr / mf:>11.3f}{paired:>8.3f}   {rounds_text}")
print()
print("null engines, QD1, 4 KiB, 1 job: wall time and CPU time per transfer (medians)")
print(f"{'tool':<8}{'transfers/s':>14}{'ns/transfer':>13}{'CPU ns/transfer':>17}")
for tool in ["fio", "rawio"]:
    v = vals(os.path.join(d, "null." + tool))
    iops = statistics.median([x[0] for x in v])
    cpu_ns = statistics.median([x[1] / 100.0 * 1e9 / x[0] for x in v])
    print(f"{tool:<8}{iops:>14.0f}{1e9 / iops:>13.1f}{cpu_ns:>17.1f}")
PY
