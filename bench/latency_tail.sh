#!/usr/bin/env bash
# The latency tail on a real mount (issue 15): a queue-depth-1 fio run of 4 KiB O_DIRECT random
# reads on a conditioned directory whose profile has a latency tail, each read's completion
# latency compared with the model's (bench/latency_tail/check.py).
#
#   bench/latency_tail.sh [TAIL|TABLE [SEED [IOS]]]   (defaults 4, 7, 3000)
#
# TABLE (it has a ':'): an empirical latency_table instead of the lognormal tail, such as
# "0.5:0.9,0.99:3,1:8" (core/latency_table.h).
#
# The profile: an SSD with 1 ms access and 400 MB/s (a 4 KiB read takes 1,009,766 ns in the
# model), queue depth 1; 1 ms keeps the mount's own ~20-50 us per read small against it.
# Needs root, fio and build/dmc. Prints the comparison; exits non-zero when it fails.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
TAIL=${1:-4}; SEED=${2:-7}; IOS=${3:-3000}
((EUID == 0)) || { echo "latency_tail: needs root (mounts)" >&2; exit 3; }
command -v fio >/dev/null || { echo "latency_tail: fio is missing" >&2; exit 1; }
[[ -x build/dmc ]] || { echo "latency_tail: build/dmc is missing; build first (./run.sh build)" >&2; exit 1; }

SCRATCH=$(mktemp -d /var/tmp/diskcond-tail.XXXXXX)
cleanup() { build/dmc stop "$SCRATCH/mnt" >/dev/null 2>&1 || true; rm -rf "$SCRATCH"; }
trap cleanup EXIT
mkdir -p "$SCRATCH/profiles" "$SCRATCH/mnt"
cat >"$SCRATCH/profiles/tail.toml" <<TOML
name = "Tail SSD"
type = "SSD"
access_time = "1ms"
read_throughput = "400MB/s"
write_throughput = "400MB/s"
io_queue_depth = 1
$([[ $TAIL == *:* ]] && echo "latency_table = \"$TAIL\"" || echo "latency_tail = \"$TAIL\"")
latency_seed = $SEED
TOML
export DISKCOND_PROFILE_DIR=$SCRATCH/profiles DISKCOND_STATE_DIR=$SCRATCH/state
build/dmc start "$SCRATCH/mnt" "Tail SSD" >/dev/null
fallocate -l 64m "$SCRATCH/mnt/f"
echo "latency_tail: tail $TAIL, seed $SEED, $IOS reads; load average $(cut -d' ' -f1-3 /proc/loadavg)"
fio --name=tail --filename="$SCRATCH/mnt/f" --rw=randread --bs=4k --direct=1 --ioengine=psync \
  --size=64m --number_ios="$IOS" --clocksource=clock_gettime --write_lat_log="$SCRATCH/lat" --log_avg_msec=0 >/dev/null
# The mount's own share: how late its reply thread sent the replies against their model times.
build/dmc status "$SCRATCH/mnt" -json | python3 -c '
import json, sys
d = json.load(sys.stdin).get("diagnostics", {})
print("reply thread lateness (us): p50 %.1f p90 %.1f p99 %.1f max %.1f; wake-ahead %.1f" % tuple(
    d.get(k, 0) / 1e3 for k in ("lateness_p50_ns", "lateness_p90_ns", "lateness_p99_ns",
                                "lateness_max_ns", "wake_ahead_ns")))'
python3 bench/latency_tail/check.py "$SCRATCH/lat_clat.1.log" "$TAIL" "$SEED" 1009766
