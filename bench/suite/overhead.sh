# shellcheck shell=bash
# Section 2, overhead with conditioning off: a native directory vs our mount (`dmc configure <m>
# SSD 0 0 0`, then `dmc start <m>`) vs libfuse's own passthrough_ll example, built here from
# Debian's /usr/share/doc/libfuse3-dev/examples into the scratch directory (never committed) and
# mounted over a separate directory with -o source=<backing dir>. fio for I/O (O_DIRECT),
# build/metadata_rate for create/stat/unlink (and rename/mkdir/rmdir in the permission-check
# comparison). The three targets take turns in every round, in a
# rotating order. A fourth, passthrough_ll with `-o default_permissions,allow_other` (the kernel's
# permission checks, which a daemon serving other users needs and ours keeps), runs the metadata
# rates only, after the three. OV_EXAMPLES (environment) overrides where passthrough_ll.c is found.

OV_EXAMPLES=${OV_EXAMPLES:-/usr/share/doc/libfuse3-dev/examples}

ov_build_passthrough() {
  local src=$SCRATCH/passthrough_ll.src
  [[ -f $OV_EXAMPLES/passthrough_ll.c ]] || { log "overhead: $OV_EXAMPLES/passthrough_ll.c is missing (libfuse3-dev)"; return 1; }
  mkdir -p "$src"
  cmd cp "$OV_EXAMPLES/passthrough_ll.c" "$OV_EXAMPLES/passthrough_helpers.h" "$src/"
  # shellcheck disable=SC2046
  cmd gcc -O2 -Wall -o "$SCRATCH/passthrough_ll" "$src/passthrough_ll.c" $(pkg-config --cflags --libs fuse3)
}

ov_start_passthrough() {  # ov_start_passthrough MOUNTPOINT BACKING [MORE OPTIONS]
  local i opts="source=$2${3:+,$3}"
  record "$SCRATCH/passthrough_ll" -f -o "$opts" "$1"  # (in the background)
  "$SCRATCH/passthrough_ll" -f -o "$opts" "$1" 2>>"$SCRATCH/out/passthrough_ll.log" &
  echo "$! $1" >>"$SCRATCH/cleanup.pt"
  for i in $(seq 1 50); do
    mountpoint -q "$1" && return 0
    sleep 0.1
  done
  log "overhead: passthrough_ll did not mount: $(tail -1 "$SCRATCH/out/passthrough_ll.log" 2>/dev/null)"
  return 1
}

# The fio rows: key | label | fio arguments
OV_ROWS=("rr1|4 KiB random read, QD1|--rw=randread --bs=4k --ioengine=psync --iodepth=1"
         "rr32|4 KiB random read, QD32|--rw=randread --bs=4k --ioengine=io_uring --iodepth=32"
         "sr|1 MiB sequential read, QD1|--rw=read --bs=1m --ioengine=psync --iodepth=1"
         "sw|1 MiB sequential write, QD1|--rw=write --bs=1m --ioengine=psync --iodepth=1")
OV_TARGETS=(native ours passthrough_ll)

ov_measure() {  # ov_measure TARGET DIR: every fio row and the metadata rate on DIR
  local t=$1 dir=$2 row key label args d out=$SCRATCH/out/ov.json mr
  for row in "${OV_ROWS[@]}"; do
    IFS='|' read -r key label args <<<"$row"
    d="read"
    if [[ $args == *=write* ]]; then d="write"; fi
    # shellcheck disable=SC2086
    run_fio "$out" --name=ov --filename="$dir/ov.dat" --size="${OV_MIB}m" --direct=1 --numjobs=1 \
      $args --norandommap --randrepeat=0 --time_based --ramp_time=1 --runtime="$OV_SECS" || true
    put "ov.$key.$t" "$(fio_iops "$out" "$d")"
    local err; err=$(fio_error "$out")
    if [[ -n $err ]]; then put "ov.$key.$t.error" "$err"; fi
  done
  ov_measure_metadata "$t" "$dir"
}

ov_measure_metadata() {  # ov_measure_metadata TARGET DIR
  local t=$1 dir=$2 mr key
  mr=$(cmd "$METADATA_RATE" "$dir" "$OV_FILES" 2>"$SCRATCH/out/mr.err") || mr='{}'
  [[ $mr != '{}' ]] || put "ov.meta.$t.error" "metadata_rate: $(head -1 "$SCRATCH/out/mr.err")"
  for key in create stat rename unlink mkdir rmdir; do
    put "ov.$key.$t" "$(jq -r ".${key}_per_sec // \"nan\"" <<<"$mr")"
  done
}

section_overhead() {
  local native=$SCRATCH/ov-native ours=$SCRATCH/ov-ours pt=$SCRATCH/ov-pt backing=$SCRATCH/ov-pt-backing
  local pt_dp=$SCRATCH/ov-pt-dp backing_dp=$SCRATCH/ov-pt-dp-backing
  local round i t pt_ok=1 dp_ok=1 delay
  OV_SECS=5; OV_MIB=256; OV_FILES=10000
  ((QUICK)) && { OV_SECS=2; OV_MIB=128; OV_FILES=2000; }
  mkdir -p "$native" "$ours" "$pt" "$backing" "$pt_dp" "$backing_dp"
  make_file "$native/ov.dat" "$OV_MIB"
  make_file "$ours/ov.dat" "$OV_MIB"
  make_file "$backing/ov.dat" "$OV_MIB"
  ov_build_passthrough && ov_start_passthrough "$pt" "$backing" || pt_ok=0
  ((pt_ok)) && ov_start_passthrough "$pt_dp" "$backing_dp" default_permissions,allow_other || dp_ok=0
  cmd "$DMC" configure "$ours" SSD 0 0 0 >/dev/null
  dmc_start "$ours"

  for round in $(seq 1 "$ROUNDS"); do
    for i in 0 1 2; do
      t=${OV_TARGETS[$(((i + round - 1) % 3))]}
      log "overhead: round $round, $t"
      case $t in
        native) ov_measure native "$native" ;;
        ours) ov_measure ours "$ours" ;;
        passthrough_ll) ((pt_ok)) && ov_measure passthrough_ll "$pt" ;;
      esac
    done
    if ((dp_ok)); then
      log "overhead: round $round, passthrough_ll -o default_permissions"
      ov_measure_metadata passthrough_ll_dp "$pt_dp"
    fi
  done
  # Conditioning really was off: the daemon added no delay to anything it served.
  delay=$(record "$DMC" status "$ours" -json; "$DMC" status "$ours" -json | jq -r '.counters.mean_added_delay_ns')
  dmc_stop "$ours"
  ((pt_ok)) && { cmd umount "$pt"; }
  ((dp_ok)) && { cmd umount "$pt_dp"; }
  ov_report "$pt_ok" "$delay"
  ((dp_ok)) && ov_report_permissions
}

# The metadata rows against passthrough_ll with the kernel's permission checks, as ours runs.
ov_report_permissions() {
  local key label o p ratio
  echo
  echo "With the kernel's permission checks on both sides: the metadata rates of ours against"
  echo "\`passthrough_ll -o default_permissions,allow_other\` (a daemon that serves other users needs"
  echo "them: without them the kernel lets a user reach a file through directories it may not"
  echo "search once another user's lookup has cached them; ours always mounts with them). With"
  echo "them, each unlink makes the kernel fetch the directory's attributes again before the next"
  echo "permission check (one more round trip per file). Medians over $ROUNDS round(s)."
  echo
  echo "| Workload | Ours | passthrough_ll, default_permissions | Ours / passthrough_ll | Goal |"
  echo "|---|---|---|---|---|"
  for key in create stat rename unlink mkdir rmdir; do
    label="$key, files/s"
    o=$(med "ov.$key.ours"); p=$(med "ov.$key.passthrough_ll_dp")
    ratio=nan
    is_num "$p" && is_num "$o" && ratio=$(calc "$o / $p")
    echo "| $label | $(fig "$o" 0 "") | $(fig "$p" 0 "") | $(fmt "$ratio" 2) | $(mark ge "$ratio" 1) |"
  done
}

ov_report() {
  local pt_ok=$1 delay=$2 row key label args n o p ratio_p ratio_n goal perr unit dec
  echo "## 2. Overhead with conditioning off"
  echo
  echo "Native directory vs our mount (\`dmc configure <m> SSD 0 0 0\`, \`dmc start <m>\`: the model"
  echo "adds nothing and replies go out at once; the daemon's mean added delay over the whole"
  echo "section was **$(fmt "$delay") ns**) vs libfuse's \`passthrough_ll\` example (Debian's libfuse"
  echo "$(pkg-config --modversion fuse3), built at benchmark time, default options, \`-o source=<backing dir>\`)."
  echo "fio, O_DIRECT, one job, a ${OV_MIB} MiB file, 1 s warm-up + ${OV_SECS} s; metadata: \`build/metadata_rate\`,"
  echo "${OV_FILES} empty files (each phase's files per second; stats may be answered from each file system's"
  echo "attribute cache). Medians over $ROUNDS round(s); the three take turns in a rotating order."
  echo "Goal: ours ahead of passthrough_ll on every row, and at least 70% of native at QD32."
  echo
  echo "Read it with this in mind: our mount serves O_DIRECT *reads* from the backing file's page"
  echo "cache (a buffered twin descriptor, docs/conditioner.md \"Caching\"; the model, not the backing"
  echo "disk, decides a conditioned read's time), while native and passthrough_ll O_DIRECT reads go"
  echo "to the disk. So our read rows can beat native: they measure the FUSE path, not this VM's"
  echo "disk. Writes stay direct on all three, so the write and metadata rows compare like with like."
  echo
  echo "| Workload | Native | Ours | passthrough_ll | Ours / native | Ours / passthrough_ll | Goal |"
  echo "|---|---|---|---|---|---|---|"
  for row in "${OV_ROWS[@]}" "create|create, files/s|" "stat|stat, files/s|" "unlink|unlink, files/s|"; do
    IFS='|' read -r key label args <<<"$row"
    unit=" IOPS"; dec=0
    [[ $key == sr || $key == sw ]] && unit=" MiB/s" && dec=1
    [[ $args == "" ]] && unit=""
    n=$(med "ov.$key.native"); o=$(med "ov.$key.ours"); p=$(med "ov.$key.passthrough_ll")
    ratio_n=nan; ratio_p=nan
    is_num "$n" && is_num "$o" && ratio_n=$(calc "$o / $n")
    is_num "$p" && is_num "$o" && ratio_p=$(calc "$o / $p")
    perr=$(vals "ov.$key.passthrough_ll.error" | head -1)
    [[ -z $perr && $args == "" ]] && perr=$(vals "ov.meta.passthrough_ll.error" | head -1)
    if ((!pt_ok)); then
      goal="**not compared** (passthrough_ll did not build or mount)"
    elif [[ -n $perr ]] && ! is_num "$p"; then
      goal="$(mark is_num "$o") (passthrough_ll failed: $perr)"
    elif [[ $key == rr32 ]]; then
      if ge "$ratio_p" 1 && ge "$ratio_n" 0.70; then goal=met; else goal="**not met**"; fi
    else
      goal=$(mark ge "$ratio_p" 1)
    fi
    echo "| $label | $(fig "$n" $dec "$unit") | $(fig "$o" $dec "$unit") | $(fig "$p" $dec "$unit") | $(fmt "$ratio_n" 2) | $(fmt "$ratio_p" 2) | $goal |"
  done
  local oerr; oerr=$(vals "ov.sw.ours.error"; vals "ov.sr.ours.error"; vals "ov.rr1.ours.error"; vals "ov.rr32.ours.error")
  [[ -n $oerr ]] && { echo; echo "Our mount failed: $(head -1 <<<"$oerr")"; }
  return 0
}
