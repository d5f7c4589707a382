# shellcheck shell=bash
# Section 3, rawio vs fio: the same target and workload, alternately, several rounds: 4 KiB psync
# random reads of a page-cached file; the null engines (no I/O: each tool's own cost); io_uring
# QD32 4 KiB random reads of the same page-cached file (fio with --invalidate=0, or it would drop
# the file's pages first). One worker / one job, buffered I/O (the
# file is in the page cache, so the tools, not the disk, are measured). IOPS and CPU time (user +
# system) per transfer: rawio's cpu.cpu_us_per_transfer (getrusage of all its threads), fio's
# (usr_cpu + sys_cpu) x job_runtime / total_ios (its job process). bench/rawio_vs_fio.sh runs the
# wider O_DIRECT matrix with the same helpers.

# key | label | fio engine arguments | rawio engine arguments
RV_ROWS=("psync|4 KiB psync random read, page-cached file|--ioengine=psync --iodepth=1|-e psync -q 1"
         "null|null engines, 4 KiB, QD1|--ioengine=null --iodepth=1|-e null -q 1"
         "uring|io_uring QD32 4 KiB random read, page-cached file|--ioengine=io_uring --iodepth=32|-e io_uring -q 32")

rv_fio() {  # rv_fio KEY FIO-ARGS
  local out=$SCRATCH/out/rv-fio.json
  # shellcheck disable=SC2086
  run_fio "$out" --name=rv --filename="$RV_FILE" --size="${RV_MIB}m" --rw=randread --bs=4k --direct=0 --invalidate=0 \
    --numjobs=1 $2 --norandommap --randrepeat=0 --time_based --runtime="$RV_SECS" || true
  put "rv.$1.fio" "$(fio_iops "$out" read)"
  put "rv.$1.fio.cpu" "$(fio_cpu_ns "$out" read)"
}

rv_rawio() {  # rv_rawio KEY RAWIO-ARGS
  local out=$SCRATCH/out/rv-rawio.json
  # shellcheck disable=SC2086
  run_rawio "$out" -R $2 -s 4k -p 1 -d off -n "${RV_MIB}m" -t "${RV_SECS}s" -c 1000000000000 "$RV_FILE" || true
  put "rv.$1.rawio" "$(rawio_field "$out" transfers_per_sec)"
  put "rv.$1.rawio.cpu" "$(calc "$(rawio_field "$out" cpu.cpu_us_per_transfer) * 1000" 2>/dev/null || echo nan)"
}

section_rawio() {
  local round row key label fargs rargs
  RV_SECS=5; RV_MIB=256
  ((QUICK)) && { RV_SECS=2; RV_MIB=64; }
  RV_FILE=$SCRATCH/rv.dat
  make_file "$RV_FILE" "$RV_MIB"
  cmd cat "$RV_FILE" >/dev/null   # into the page cache
  for round in $(seq 1 "$ROUNDS"); do
    log "rawio: round $round"
    for row in "${RV_ROWS[@]}"; do
      IFS='|' read -r key label fargs rargs <<<"$row"
      # Alternate which tool goes first.
      if ((round % 2)); then rv_fio "$key" "$fargs"; rv_rawio "$key" "$rargs"
      else rv_rawio "$key" "$rargs"; rv_fio "$key" "$fargs"; fi
    done
  done
  rv_report
}

rv_report() {
  local row key label fargs rargs f r fc rc ratio paired goal
  echo "## 3. rawio vs fio"
  echo
  echo "Same file, same workload, one worker / one job, buffered I/O on a ${RV_MIB} MiB file held in the"
  echo "page cache, ${RV_SECS} s per run; the tools alternate (which goes first changes every round). Medians"
  echo "over $ROUNDS round(s). IOPS ratio: rawio / fio of the medians (paired: median of each round's ratio)."
  echo "CPU per transfer: user + system time of the tool's threads / transfers. Goal: rawio at least as"
  echo "fast (ratio >= 1) and no more CPU per transfer."
  echo
  echo "| Workload | fio IOPS | rawio IOPS | rawio / fio | paired | fio CPU ns/transfer | rawio CPU ns/transfer | Goal |"
  echo "|---|---|---|---|---|---|---|---|"
  for row in "${RV_ROWS[@]}"; do
    IFS='|' read -r key label fargs rargs <<<"$row"
    f=$(med "rv.$key.fio"); r=$(med "rv.$key.rawio")
    fc=$(med "rv.$key.fio.cpu"); rc=$(med "rv.$key.rawio.cpu")
    ratio=nan; is_num "$f" && is_num "$r" && ratio=$(calc "$r / $f")
    paired=$(paired "rv.$key.rawio" "rv.$key.fio")
    if ge "$ratio" 1 && le "$rc" "$fc"; then goal=met; else goal="**not met**"; fi
    echo "| $label | $(fig "$f") | $(fig "$r") | $(fmt "$ratio" 3) | $(fmt "$paired" 3) | $(fig "$fc") | $(fig "$rc") | $goal |"
  done
}
