#!/usr/bin/env bash
# rawio_vs_fio.sh: runs rawio and fio side by side on the same file and workload, alternately,
# for several rounds, and prints median IOPS and the rawio/fio ratio for each workload; then
# compares the cost per transfer of rawio's null engine with fio's (`--ioengine=null`).
#
# Workloads: random read, O_DIRECT, one worker / one job, psync and io_uring, queue depth 1 and
# 32, 4 KiB and 1 MiB transfers. (psync is synchronous in both tools: its QD32 runs as QD1.)
# bench/suite.sh's rawio section (bench/suite/rawio.sh) compares page-cached reads with the same
# helpers (bench/suite/lib.sh).
#
# Usage: bench/rawio_vs_fio.sh [-r ROUNDS] [-t SECONDS] [-f FILE] [-s SIZE] [-b RAWIO_BINARY]
#   defaults: 3 rounds, 3 s per run, /tmp/rawio_vs_fio.dat (made and removed if absent), 1g.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)

ROUNDS=3
SECONDS_PER_RUN=3
FILE=/tmp/rawio_vs_fio.dat
SIZE=1g
RAWIO_BIN=${RAWIO:-$REPO/build/rawio}
while getopts "r:t:f:s:b:h" opt; do
  case $opt in
    r) ROUNDS=$OPTARG ;;
    t) SECONDS_PER_RUN=$OPTARG ;;
    f) FILE=$OPTARG ;;
    s) SIZE=$OPTARG ;;
    b) RAWIO_BIN=$OPTARG ;;
    *) sed -n '2,14p' "$0"; exit 2 ;;
  esac
done
command -v fio >/dev/null || { echo "rawio_vs_fio: fio not found" >&2; exit 1; }
command -v jq >/dev/null || { echo "rawio_vs_fio: jq not found" >&2; exit 1; }
[ -x "$RAWIO_BIN" ] || { echo "rawio_vs_fio: $RAWIO_BIN not built" >&2; exit 1; }

SCRATCH=$(mktemp -d)
# shellcheck source=bench/suite/lib.sh
source "$REPO/bench/suite/lib.sh"
RAWIO=$RAWIO_BIN
MADE_FILE=0
cleanup() { rm -rf "$SCRATCH"; [ "$MADE_FILE" = 1 ] && rm -f "$FILE"; return 0; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -f "$FILE" ]; then
  SIZE_MB=$(( $(numfmt --from=iec "${SIZE^^}") / 1048576 ))
  echo "making ${SIZE_MB} MiB test file $FILE" >&2
  MADE_FILE=1
  make_file "$FILE" "$SIZE_MB"
fi

one_fio() {  # one_fio KEY ENGINE QD BS
  run_fio "$SCRATCH/f.json" --name=rr --filename="$FILE" --size="$SIZE" --rw=randread --bs="$4" --direct=1 \
      --ioengine="$2" --iodepth="$3" --numjobs=1 --time_based --runtime="$SECONDS_PER_RUN" || true
  put "$1.fio" "$(fio_iops "$SCRATCH/f.json" read)"
}
one_rawio() {  # one_rawio KEY ENGINE QD BS
  run_rawio "$SCRATCH/r.json" -R -e "$2" -q "$3" -s "$4" -p 1 -n "$SIZE" \
      -t "${SECONDS_PER_RUN}s" -c 1000000000000 "$FILE" || true
  put "$1.rawio" "$(rawio_field "$SCRATCH/r.json" transfers_per_sec)"
}

CONFIGS=("psync 1 4k" "psync 32 4k" "psync 1 1m" "psync 32 1m"
         "io_uring 1 4k" "io_uring 32 4k" "io_uring 1 1m" "io_uring 32 1m")

for round in $(seq 1 "$ROUNDS"); do
  for cfg in "${CONFIGS[@]}"; do
    read -r engine qd bs <<<"$cfg"
    key="$engine-qd$qd-$bs"
    # Alternate which tool goes first, so drift in the machine hits both alike.
    if (( round % 2 )); then
      one_fio "$key" "$engine" "$qd" "$bs"; one_rawio "$key" "$engine" "$qd" "$bs"
    else
      one_rawio "$key" "$engine" "$qd" "$bs"; one_fio "$key" "$engine" "$qd" "$bs"
    fi
  done
  # Null engines: what each tool costs per transfer when no I/O is done (QD1, 4 KiB, one job).
  run_fio "$SCRATCH/fn.json" --name=null --ioengine=null --size="$SIZE" --rw=randread --bs=4k --iodepth=1 \
      --numjobs=1 --time_based --runtime="$SECONDS_PER_RUN" || true
  put null.fio "$(fio_iops "$SCRATCH/fn.json" read)"
  put null.fio.cpu "$(fio_cpu_ns "$SCRATCH/fn.json" read)"
  run_rawio "$SCRATCH/rn.json" -R -e null -q 1 -s 4k -p 1 -n "$SIZE" -t "${SECONDS_PER_RUN}s" \
      -c 1000000000000 "$FILE" || true
  put null.rawio "$(rawio_field "$SCRATCH/rn.json" transfers_per_sec)"
  put null.rawio.cpu "$(calc "$(rawio_field "$SCRATCH/rn.json" cpu.cpu_us_per_transfer) * 1000")"
  echo "round $round done" >&2
done

echo "rawio vs fio: random read, O_DIRECT, 1 worker/job, $ROUNDS rounds x $SECONDS_PER_RUN s, medians"
echo "(rawio/fio: ratio of the medians; paired: median of each round's rawio/fio, the two runs"
echo " of a round being back to back, which cancels most drift of a shared machine)"
printf '%-20s%12s%12s%11s%8s   %s\n' workload "fio IOPS" "rawio IOPS" rawio/fio paired "rounds (fio | rawio)"
for cfg in "${CONFIGS[@]}"; do
  read -r engine qd bs <<<"$cfg"
  key="$engine-qd$qd-$bs"
  f=$(med "$key.fio"); r=$(med "$key.rawio")
  printf '%-20s%12s%12s%11s%8s   %s | %s\n' "$key" "$(fmt "$f")" "$(fmt "$r")" "$(fmt "$(calc "$r / $f")" 3)" \
    "$(fmt "$(paired "$key.rawio" "$key.fio")" 3)" "$(vals "$key.fio" | xargs -n1 printf '%.0f ' | sed 's/ $//')" \
    "$(vals "$key.rawio" | xargs -n1 printf '%.0f ' | sed 's/ $//')"
done
echo
echo "null engines, QD1, 4 KiB, 1 job: wall time and CPU time per transfer (medians)"
printf '%-8s%14s%13s%17s\n' tool transfers/s ns/transfer "CPU ns/transfer"
for tool in fio rawio; do
  iops=$(med "null.$tool")
  printf '%-8s%14s%13s%17s\n' "$tool" "$(fmt "$iops")" "$(fmt "$(calc "1e9 / $iops")" 1)" "$(fmt "$(med "null.$tool.cpu")" 1)"
done
