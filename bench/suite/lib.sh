# shellcheck shell=bash
# Common pieces of bench/suite.sh and its sections (sourced, never run).
#
# Every section runs its commands through `cmd`, which records them (scratch paths shown as
# $SCRATCH) for the report's "Commands" list; keeps its figures with `put KEY VALUE` and reads
# medians back with `med KEY`; and registers what it mounts or starts so that `suite_cleanup`
# undoes it on any exit (error, Ctrl-C, kill).
#
# Set by bench/suite.sh: REPO, SCRATCH, QUICK (0/1), ROUNDS.
# shellcheck disable=SC2034  # the paths are used by the sections

# SUITE_DMC: another dmc binary to measure (e.g. an older build, for before/after figures).
DMC=${SUITE_DMC:-$REPO/build/dmc}
RAWIO=$REPO/build/rawio
BENCH_BIN=$REPO/build/diskcond_bench
METADATA_RATE=$REPO/build/metadata_rate
IDEAL_DEVICE=$REPO/build/ideal_device

log() { echo "suite: $*" >&2; }
die() { echo "suite: $*" >&2; exit 1; }

# --- commands ---------------------------------------------------------------------------------

CMD_LOG=/dev/null  # the current section's command list (set by begin_section)

record() {  # record ARGS...: add the command line to the section's list
  local line
  line=$(printf '%q ' "$@")
  line=${line% }
  line=${line//$SCRATCH/\$SCRATCH}
  line=${line//$REPO\//}
  echo "$line" >>"$CMD_LOG"
}
cmd() { record "$@"; "$@"; }

# Markdown list of the distinct commands a section ran, in first-run order, under the summary
# line SUMMARY (default: how many, and that the measuring ones run once per round).
commands_block() {
  local summary=${1:-"Commands run ($(awk '!seen[$0]++' "$CMD_LOG" | wc -l) distinct; the measuring ones run once per round)"}
  echo
  echo "<details><summary>$summary</summary>"
  echo
  echo '```sh'
  awk '!seen[$0]++' "$CMD_LOG"
  echo '```'
  echo
  echo "</details>"
}

# --- figures ----------------------------------------------------------------------------------

# put KEY VALUE: one figure, with the time (UTC) and the load average it was taken at.
put() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$(date -u +%H:%M:%S)" "$(cut -d' ' -f1 /proc/loadavg)" >>"$SCRATCH/results.tsv"; }
vals() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$SCRATCH/results.tsv" 2>/dev/null; }
median() {  # numbers on stdin -> their median, or "nan" when there are none
  sort -g | awk '{ a[NR] = $1 } END {
    if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
med() { vals "$1" | { grep -v '^nan$' || true; } | median; }   # med KEY
# Median over rounds of A's value / B's value from the same round (runs of a round are back to
# back, so this cancels most drift of a shared machine). Keys hold one value per round, in order.
paired() {
  paste <(vals "$1") <(vals "$2") | awk '$1 != "nan" && $2 != "nan" && $2 != 0 { print $1 / $2 }' | median
}
calc() { awk "BEGIN { v = $1; print v }"; }                 # calc EXPR (floating point)
is_num() { [[ $1 =~ ^-?[0-9.]+([eE][-+]?[0-9]+)?$ ]]; }
fmt() {  # fmt VALUE [DECIMALS]: rounded, or "-" when not a number
  is_num "$1" || { echo "-"; return; }
  awk -v v="$1" -v d="${2:-0}" 'BEGIN { printf "%.*f\n", d, v }'
}
fig() { is_num "$1" || { echo "-"; return; }; echo "$(fmt "$1" "${2:-0}")${3:-}"; }  # VALUE DECIMALS UNIT
pct() { is_num "$1" || { echo "-"; return; }; awk -v v="$1" 'BEGIN { printf "%+.1f%%\n", v * 100 }'; }
ge() { is_num "$1" && is_num "$2" && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }  # a >= b
le() { is_num "$1" && is_num "$2" && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }  # a <= b
abs_le() { is_num "$1" && awk -v a="$1" -v b="$2" 'BEGIN { if (a < 0) a = -a; exit !(a <= b) }'; }
mark() { if "$@"; then echo "met"; else echo "**not met**"; fi; }   # mark TEST ARGS...

# --- fio and rawio ----------------------------------------------------------------------------

# run_fio OUT.json FIO-ARGS...: runs fio with JSON output to OUT.json; stderr goes to OUT.err.
# Returns fio's status (a failed job also shows as a non-zero .jobs[0].error).
run_fio() {
  local out=$1; shift
  cmd fio "$@" --output-format=json --output="$out" 2>"$out.err" >/dev/null
}
# fio_iops OUT.json read|write -> IOPS of the job, or nan when it failed
fio_iops() {
  jq -r --arg d "$2" 'if (.jobs[0].error // 0) != 0 then "nan" else .jobs[0][$d].iops end' "$1" 2>/dev/null || echo nan
}
# fio_error OUT.json -> one line saying why a job failed (empty when it did not)
fio_error() {
  local e
  e=$(jq -r '.jobs[0].error // 0' "$1" 2>/dev/null || echo "?")
  if [[ $e != 0 ]]; then
    local msg
    msg=$(grep -m1 . "$1.err" 2>/dev/null || echo "no message")
    echo "fio error $e: ${msg//$SCRATCH/\$SCRATCH}"
  fi
}
# fio_cpu_ns OUT.json read|write -> CPU time (user + system) of the job per transfer, in ns
fio_cpu_ns() {
  jq -r --arg d "$2" '.jobs[0] | ((.usr_cpu + .sys_cpu) / 100 * .job_runtime * 1e6 / .[$d].total_ios)' "$1" 2>/dev/null || echo nan
}
# fio_steady_iops IOPS-LOG SECONDS: mean of fio's per-second IOPS log entries (--log_avg_msec=1000)
# for the whole seconds after the first, up to SECONDS: what `dmc verify` measures.
fio_steady_iops() {
  awk -F, -v s="$2" '$1 > 1500 && $1 <= s * 1000 + 500 { sum += $2; n++ } END { if (n) print sum / n; else print "nan" }' "$1" 2>/dev/null || echo nan
}
# run_rawio OUT.json RAWIO-ARGS...: rawio --json --no-progress, stderr to OUT.err
run_rawio() {
  local out=$1; shift
  cmd "$RAWIO" --json --no-progress "$@" >"$out" 2>"$out.err"
}
rawio_field() { jq -r ".targets[0].tests[0].$2 // \"nan\"" "$1" 2>/dev/null || echo nan; }  # OUT.json PATH
# Transfers per second over the whole seconds after the first and before the last (partial) one,
# as `dmc verify` measures; the whole run's rate when it was too short for that.
rawio_steady_iops() {
  jq -r '.targets[0].tests[0] as $t
    | ([$t.time_limit_ns, $t.elapsed_ns] | min / 1e9 | floor) as $full
    | [$t.intervals.samples[] | select(.start_sec >= 1 and .start_sec < $full) | .transfers] as $s
    | if ($s | length) > 0 then ($s | add) / ($s | length) else $t.transfers_per_sec end' "$1" 2>/dev/null || echo nan
}

# --- mounts and processes: registered, undone by suite_cleanup --------------------------------

dmc_start() {  # dmc_start DIR [PROFILE]
  echo "$1" >>"$SCRATCH/cleanup.dmc"
  cmd "$DMC" start "$@" >/dev/null
}
dmc_stop() { cmd "$DMC" stop "$1" >/dev/null; }

descendants() {  # descendants PID: every process below PID, by parent id
  local c
  for c in $(pgrep -P "$1" 2>/dev/null); do echo "$c"; descendants "$c"; done
}

suite_cleanup() {
  local m pid
  # What this run started and is still running after an interrupt (the section's subshell, fio,
  # rawio, passthrough_ll): listed before any is killed, so none escapes by being re-parented.
  # The dmc daemons are not among them; dmc stop ends those.
  for pid in $(descendants $$); do kill "$pid" 2>/dev/null || true; done
  if [[ -f $SCRATCH/cleanup.dmc ]]; then
    while read -r m; do
      "$DMC" stop "$m" -force >/dev/null 2>&1 || true
    done < <(sort -u "$SCRATCH/cleanup.dmc")
  fi
  if [[ -f $SCRATCH/cleanup.pt ]]; then
    while read -r pid m; do
      umount -l "$m" 2>/dev/null || true
      kill "$pid" 2>/dev/null || true
    done <"$SCRATCH/cleanup.pt"
  fi
  # Nothing may stay mounted under the scratch directory before it is removed.
  while read -r m; do umount -l "$m" 2>/dev/null || true; done < <(awk -v s="$SCRATCH" 'index($2, s) == 1 { print $2 }' /proc/mounts | sort -r)
  rm -rf "$SCRATCH"
}

# make_file PATH MIB: a file of random data, written and synced before any mount covers it.
make_file() { cmd dd if=/dev/urandom of="$1" bs=1M count="$2" conv=fsync status=none; }

# mounts_poll_idle_cpus: true when a conditioned mount started from here keeps idle CPUs polling
# while its traffic flows (docs/conditioner.md "Idle CPUs"): by default, for root, whose daemon
# may open the kernel's /dev/cpu_dma_latency; DISKCOND_IDLE_POLL=off declines it.
mounts_poll_idle_cpus() {
  [[ ${DISKCOND_IDLE_POLL:-} != off && -w /dev/cpu_dma_latency ]]
}
