#!/usr/bin/env bash
# The mount's own cost (its floor) in the application rows that it decides: untar, a cold cp -r
# and rm -rf of a tree, timed on dmc builds taking turns, with the FUSE requests each sent
# (`fuse:fuse_request_send`). For A/B of changes to the request path (issue 18, docs/apps.md).
#
#   bench/apps/floor_ab.sh ROUNDS PROFILE DMC...    (needs root; FILES=2000 by default)
#
# PROFILE is a profile number, or `off` for the mount with conditioning off (`SSD 0 0 0`, the
# "unconditioned directory" of docs/apps.md). Prints one line per build and round, then the
# medians per build and step.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
usage() { echo "usage: floor_ab.sh ROUNDS PROFILE DMC..." >&2; exit 2; }
(($# >= 3)) || usage
ROUNDS=$1; PROFILE=$2; shift 2
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || usage
[[ $PROFILE =~ ^([0-9]+|off)$ ]] || usage
for d in "$@"; do [[ -x $d ]] || { echo "floor_ab: not an executable: $d" >&2; exit 2; }; done
((EUID == 0)) || { echo "floor_ab: needs root (drop_caches, tracefs)" >&2; exit 3; }
N=${FILES:-2000}
T=/sys/kernel/tracing
[[ -d $T/events/fuse ]] || mount -t tracefs none $T 2>/dev/null || true
TRACE=0; [[ -w $T/events/fuse/fuse_request_send/enable ]] && TRACE=1

S=$(mktemp -d /var/tmp/diskcond-floor-ab.XXXXXX)
export DISKCOND_STATE_DIR=$S/state
MOUNTED=""
cleanup() {
  ((TRACE)) && echo 0 >$T/events/fuse/fuse_request_send/enable
  [[ -n $MOUNTED ]] && "$MOUNTED" stop "$S/disk" >/dev/null 2>&1
  rm -rf "$S"
}
trap cleanup EXIT
mkdir -p "$S/disk" "$S/tree"
python3 "$REPO/bench/apps/make_tree.py" "$S/tree" "$N" >/dev/null
tar --sort=name -cf "$S/tree.tar" -C "$S/tree" .

requests() {  # the FUSE requests sent since trace_start
  ((TRACE)) || { echo "-"; return; }
  echo 0 >$T/events/fuse/fuse_request_send/enable
  grep -c 'fuse_request_send' $T/trace || true
}
trace_start() { ((TRACE)) || return 0; echo 1 >$T/tracing_on; echo >$T/trace; echo 1 >$T/events/fuse/fuse_request_send/enable; }
step() {  # step NAME COMMAND...: "NAME seconds requests"
  local t0 t1
  trace_start; t0=$(date +%s.%N); "${@:2}"; t1=$(date +%s.%N)
  echo "$1 $(echo "$t1 - $t0" | bc) $(requests)"
}
one_round() {  # one_round DMC: untar, cold cp -r, rm -rf on a fresh mount
  local dmc=$1
  "$dmc" start "$S/disk" "${PROFILE/off/0}" >/dev/null; MOUNTED=$dmc
  [[ $PROFILE == off ]] && "$dmc" configure "$S/disk" SSD 0 0 0 >/dev/null
  mkdir -p "$S/disk/w/a"
  step untar tar -xf "$S/tree.tar" -C "$S/disk/w/a"
  "$dmc" sync "$S/disk" >/dev/null; sync; echo 3 >/proc/sys/vm/drop_caches
  step cp_r cp -r "$S/disk/w/a" "$S/disk/w/c"
  "$dmc" sync "$S/disk" >/dev/null
  step rm_rf rm -rf "$S/disk/w/a" "$S/disk/w/c"
  "$dmc" stop "$S/disk" >/dev/null; MOUNTED=""
}

echo "# floor_ab: $N files, profile $PROFILE, $ROUNDS rounds, $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "round build step seconds requests"
for ((r = 1; r <= ROUNDS; r++)); do
  order=("$@"); ((r % 2 == 0)) && order=($(printf '%s\n' "$@" | tac))
  for dmc in "${order[@]}"; do
    one_round "$dmc" | sed "s|^|$r $dmc |"
  done
done | tee "$S/rows"
echo "# medians (seconds, requests); load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$S/rows" "$@" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l[0].isdigit()]
for build in sys.argv[2:]:
    parts = []
    for step in ("untar", "cp_r", "rm_rf"):
        mine = [r for r in rows if r[1] == build and r[2] == step]
        secs = statistics.median(float(r[3]) for r in mine)
        reqs = [r[4] for r in mine]
        req = str(int(statistics.median(int(x) for x in reqs))) if all(x.isdigit() for x in reqs) else "-"
        parts.append(f"{step} {secs:.3f} s ({req})")
    print(f"{build}: " + ", ".join(parts))
EOF
