#!/usr/bin/env bash
# Metadata rates of dmc builds against libfuse's passthrough_ll (issue 18 item 4; docs/benchmarks.md
# section 2): build/metadata_rate (create, stat, rename, unlink, mkdir, rmdir over FILES names) on
# an unconditioned mount of each dmc build (`dmc configure <m> SSD 0 0 0`) and on
# `passthrough_ll -o default_permissions,allow_other` (the kernel's permission checks, as ours),
# every target once per round in a rotating order; then the median of each rate per target and
# its ratio to passthrough_ll's median, and the daemon's CPU time (user + system, all its threads,
# /proc/<pid>/stat) per name over the six phases: less sensitive to other jobs than the rates.
#
#   bench/metadata_ab.sh ROUNDS FILES DMC...
#
# METADATA_AB_USER=<user> (environment) runs metadata_rate as that user (setpriv, no
# supplementary groups) in a directory it owns, so that our daemon switches credentials for
# every request; root by default (no switch). passthrough_ll is left out then (it creates
# everything as root, so the user may not even create files in the directories it makes), and
# the ratios are to the first DMC. METADATA_AB_TMPFS=1 puts every backing directory on one
# tmpfs, so that the FUSE path, not this machine's disk, sets the rates (creates
# and mkdirs on ext4 here wait 0.75-1.7 ms in the backing filesystem when other jobs write).
# PASSTHROUGH_LL=<binary> uses a passthrough_ll built already; else it is built from
# /usr/share/doc/libfuse3-dev/examples.
# Needs root and /dev/fuse. Prints one line per run with the 1-minute load average; everything
# (/var/tmp/metadata_ab.XXXXXX, its mounts) is removed at the end, Ctrl-C included.
set -u
usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; }
if [[ $# -lt 3 || $1 == -h || $1 == --help ]]; then usage; exit 2; fi
rounds=$1 files=$2; shift 2
[[ $rounds =~ ^[1-9][0-9]*$ && $files =~ ^[1-9][0-9]*$ ]] || { echo "metadata_ab: ROUNDS and FILES must be positive numbers" >&2; exit 2; }
REPO=$(cd "$(dirname "$0")/.." && pwd)
RATE=$REPO/build/metadata_rate
[[ -x $RATE ]] || { echo "metadata_ab: $RATE is missing (build it first)" >&2; exit 1; }
for b in "$@"; do [[ -x $b ]] || { echo "metadata_ab: $b is not an executable" >&2; exit 1; }; done
user=${METADATA_AB_USER:-root}
id "$user" >/dev/null 2>&1 || { echo "metadata_ab: no user $user" >&2; exit 1; }

D=$(mktemp -d /var/tmp/metadata_ab.XXXXXX) && chmod 755 "$D"  # METADATA_AB_USER must reach it
export DISKCOND_STATE_DIR=$D/state
mkdir -p "$DISKCOND_STATE_DIR" "$D/fs"
F=$D/fs  # the targets' directories
PT_PID=
cleanup() {
  local i
  for i in "${!DMCS[@]}"; do "${DMCS[$i]}" stop "$F/m$i" >/dev/null 2>&1; done
  if [[ -n $PT_PID ]]; then umount "$F/pt" 2>/dev/null; kill "$PT_PID" 2>/dev/null; wait "$PT_PID" 2>/dev/null; fi
  mountpoint -q "$F" && umount "$F"
  rm -rf "$D"
}
DMCS=("$@")
trap cleanup EXIT
trap 'exit 130' INT TERM
if [[ ${METADATA_AB_TMPFS:-0} == 1 ]]; then mount -t tmpfs -o size=1g,mode=0755 metadata_ab "$F" || exit 1; fi
mkdir -p "$F/pt" "$F/pt-backing"

names=() dirs=() pids=()
pt=${PASSTHROUGH_LL:-}
if [[ $user != root ]]; then
  :  # no passthrough_ll (see above)
elif [[ -z $pt ]]; then
  ex=/usr/share/doc/libfuse3-dev/examples
  cp "$ex/passthrough_ll.c" "$ex/passthrough_helpers.h" "$D/" || exit 1
  # shellcheck disable=SC2046
  gcc -O2 -Wall -o "$D/passthrough_ll" "$D/passthrough_ll.c" $(pkg-config --cflags --libs fuse3) || exit 1
  pt=$D/passthrough_ll
fi
if [[ $user == root ]]; then
  "$pt" -f -o source="$F/pt-backing",default_permissions,allow_other "$F/pt" 2>"$D/pt.log" &
  PT_PID=$!
  for _ in $(seq 1 50); do mountpoint -q "$F/pt" && break; sleep 0.1; done
  mountpoint -q "$F/pt" || { echo "metadata_ab: passthrough_ll did not mount: $(tail -1 "$D/pt.log")" >&2; exit 1; }
  names=(passthrough_ll) dirs=("$F/pt") pids=("$PT_PID")
fi
for i in "${!DMCS[@]}"; do
  mkdir -p "$F/m$i"
  "${DMCS[$i]}" configure "$F/m$i" SSD 0 0 0 >/dev/null || exit 1
  "${DMCS[$i]}" start "$F/m$i" >/dev/null || exit 1
  names+=("dmc$i") dirs+=("$F/m$i")
  pids+=("$("${DMCS[$i]}" status "$F/m$i" -json | jq -r .daemon_pid)")
  echo "dmc$i = ${DMCS[$i]}"
done
# The working directory of each target: owned by the user who runs metadata_rate.
for i in "${!dirs[@]}"; do mkdir -p "${dirs[$i]}/w" && chown "$user:" "${dirs[$i]}/w"; dirs[i]=${dirs[$i]}/w; done
runner=()
[[ $user != root ]] && runner=(setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups)

OPS=(create stat rename unlink mkdir rmdir)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }  # user + system, dead threads included
declare -A RES
n=${#names[@]}
for r in $(seq 1 "$rounds"); do
  for k in $(seq 0 $((n - 1))); do
    t=$(((k + r - 1) % n))
    cpu0=$(cpu_ticks "${pids[$t]}")
    out=$("${runner[@]}" "$RATE" "${dirs[$t]}" "$files") || { echo "metadata_ab: ${names[$t]} failed" >&2; exit 1; }
    cpu_us=$(awk -v a="$cpu0" -v b="$(cpu_ticks "${pids[$t]}")" -v hz="$(getconf CLK_TCK)" -v n="$files" 'BEGIN {printf "%.1f", (b - a) / hz * 1e6 / n}')
    load=$(cut -d' ' -f1 /proc/loadavg)
    echo "round $r ${names[$t]}: $out daemon CPU $cpu_us us/name (load $load)"
    RES[$t.cpu]+="$cpu_us "
    for op in "${OPS[@]}"; do
      RES[$t.$op]+="$(jq -r ".${op}_per_sec" <<<"$out") "
    done
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
echo
echo "medians over $rounds round(s), $files names, as $user, backing $(stat -f -c %T "$F"); ratio = target / ${names[0]}"
printf '%-8s' op; for t in "${names[@]}"; do printf ' %16s' "$t"; done; echo
for op in "${OPS[@]}"; do
  base=$(median <<<"${RES[0.$op]}")
  printf '%-8s' "$op"
  for t in $(seq 0 $((n - 1))); do
    m=$(median <<<"${RES[$t.$op]}")
    printf ' %9.0f (%4.2f)' "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN {print a / b}')"
  done
  echo
done
printf '%-8s' "cpu us"
for t in $(seq 0 $((n - 1))); do
  m=$(median <<<"${RES[$t.cpu]}")
  printf ' %9.1f (%4.2f)' "$m" "$(awk -v a="$m" -v b="$(median <<<"${RES[0.cpu]}")" 'BEGIN {print a / b}')"
done
echo "   (daemon CPU per name, all six phases)"
