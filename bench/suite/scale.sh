# shellcheck shell=bash
# Section 4a, scale: 1 to 256 concurrent streams through one mount. Profile: `dmc configure <m>
# SSD 4ms 20 20 32` (4 ms access, 20 MiB/s, queue depth 32), which this VM's mount can deliver at
# every stream count (5120 4 KiB IOPS at most). Each stream is one rawio worker doing 4 KiB
# O_DIRECT psync random reads of one 64 MiB file in the mount.
#
# The prediction is the disk model's SSD rule for N commands outstanding (docs/disk-model.md,
# predict() in src/core/predict.cc), computed here: with n = min(N, depth) pieces in service,
#   per_command = max((access + transfer) / n, transfer),  transfer = 4096 B / 20 MiB/s,
#   IOPS = 1 / per_command,  latency = N x per_command (Little's law).
# The model is deterministic (fixed service, arrival-order channel), so in a closed loop every
# command waits the same: p99 is predicted equal to that latency. Goal per row: throughput within
# 5% of the prediction and p99 at most 1.25 x the predicted latency.

SC_ACCESS_US=4000
SC_MIBPS=20
SC_DEPTH=32

sc_predict() {  # sc_predict N -> "IOPS LATENCY_NS"
  awk -v N="$1" -v a="$SC_ACCESS_US" -v r="$SC_MIBPS" -v d="$SC_DEPTH" 'BEGIN {
    t = 4096 / (r * 1048576) * 1e9; acc = a * 1000; n = (N < d) ? N : d
    per = (acc + t) / n; if (per < t) per = t
    printf "%.3f %.0f\n", 1e9 / per, N * per }'
}

section_scale() {
  local dir=$SCRATCH/scale round n secs=5 streams=(1 2 4 8 16 32 64 128 256) order out=$SCRATCH/out/scale.json
  ((QUICK)) && { secs=3; streams=(1 4 16 64 256); }
  SC_SECS=$secs
  mkdir -p "$dir"
  make_file "$dir/scale.dat" 64
  cmd "$DMC" configure "$dir" SSD "${SC_ACCESS_US}us" "$SC_MIBPS" "$SC_MIBPS" "$SC_DEPTH" >/dev/null
  dmc_start "$dir"
  for round in $(seq 1 "$ROUNDS"); do
    # Up on odd rounds, down on even ones.
    order=("${streams[@]}")
    ((round % 2)) || mapfile -t order < <(printf '%s\n' "${streams[@]}" | sort -rn)
    for n in "${order[@]}"; do
      log "scale: round $round, $n streams"
      run_rawio "$out" -R -e psync -q 1 -p "$n" -s 4k -d on -n 64m -t "${secs}s" -c 1000000000000 "$dir/scale.dat" || true
      put "sc.$n.iops" "$(rawio_steady_iops "$out")"
      put "sc.$n.mean" "$(rawio_field "$out" lat_ns.mean)"
      put "sc.$n.p99" "$(rawio_field "$out" lat_ns.p99)"
    done
  done
  dmc_stop "$dir"
  SC_STREAMS=("${streams[@]}")
  sc_report
}

sc_report() {
  local n iops mean p99 piops plat err ratio goal
  echo "## 4. Scale: concurrent streams through one mount"
  echo
  echo "One mount, \`dmc configure <m> SSD ${SC_ACCESS_US}us $SC_MIBPS $SC_MIBPS $SC_DEPTH\` (access ${SC_ACCESS_US} us, $SC_MIBPS MiB/s, queue depth"
  echo "$SC_DEPTH); N streams = \`rawio -p N\` workers, each 4 KiB O_DIRECT psync random reads (QD1) of one"
  echo "64 MiB file, ${SC_SECS} s; throughput over the whole seconds after the first, mean latency and p99"
  echo "over the run."
  echo "Prediction (the model's SSD rule, docs/disk-model.md): n = min(N, $SC_DEPTH) in service,"
  echo "per command = max((access + transfer) / n, transfer), IOPS = 1 / that, latency = N x that;"
  echo "the model is deterministic, so p99 is predicted equal to the mean. Goal: IOPS within 5%,"
  echo "p99 at most 1.25 x predicted. Stream counts run up on odd rounds, down on even ones."
  echo
  echo "| Streams | Predicted IOPS | IOPS | Error | Predicted latency | Mean | p99 | p99 / predicted | Goal |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for n in "${SC_STREAMS[@]}"; do
    read -r piops plat < <(sc_predict "$n")
    iops=$(med "sc.$n.iops"); mean=$(med "sc.$n.mean"); p99=$(med "sc.$n.p99")
    err=nan; ratio=nan
    is_num "$iops" && err=$(calc "$iops / $piops - 1")
    is_num "$p99" && ratio=$(calc "$p99 / $plat")
    if abs_le "$err" 0.05 && le "$ratio" 1.25; then goal=met; else goal="**not met**"; fi
    echo "| $n | $(fmt "$piops") | $(fig "$iops") | $(pct "$err") | $(fmt "$(calc "$plat / 1e6")" 2) ms | $(fig "$(calc "${mean/nan/0} / 1e6")" 2 " ms") | $(fig "$(calc "${p99/nan/0} / 1e6")" 2 " ms") | $(fmt "$ratio" 2) | $goal |"
  done
}
