# shellcheck shell=bash
# Section 4b, the model's cost per command: build/diskcond_bench (bench/model_bench.cc, Google
# Benchmark), the BM_Submit benchmarks, one repetition per round, medians of the repetitions.
# Goal per row: at most 1 us per command (the mount's own round trip for a 4 KiB request is
# 85 us or more here, docs/conditioner.md).

section_model() {
  local out=$SCRATCH/out/model.json args=()
  ((QUICK)) && args=(--benchmark_min_time=0.05)
  cmd "$BENCH_BIN" --benchmark_filter='BM_Submit' --benchmark_repetitions="$ROUNDS" \
    --benchmark_format=json "${args[@]}" >"$out" 2>"$out.err" || log "model: diskcond_bench failed: $(tail -1 "$out.err")"
  echo "## 5. The model's cost per command"
  echo
  echo "\`DiskModel::submit\` for one 4 KiB command, Google Benchmark (bench/model_bench.cc), $ROUNDS"
  echo "repetition(s)$( ((QUICK)) && echo ", 0.05 s minimum each"); medians of real and CPU time per command. Contended: two threads"
  echo "submitting to one model. Goal: at most 1 us per command (a 4 KiB request through the mount"
  echo "takes 85 us or more on this machine)."
  echo
  echo "| Benchmark | Real ns/command | CPU ns/command | Goal |"
  echo "|---|---|---|---|"
  # Per benchmark: the median aggregate when there are repetitions, else the single run.
  jq -r '[.benchmarks[] | select(.run_type == "iteration" or .aggregate_name == "median")]
         | group_by(.run_name) | .[]
         | (map(select(.aggregate_name == "median")) + map(select(.run_type == "iteration")))[0]
         | [.run_name, .real_time, .cpu_time, .time_unit] | @tsv' "$out" 2>/dev/null |
    while IFS=$'\t' read -r name real cpu unit; do
      [[ $unit == ns ]] || { real=$(calc "$real * 1000"); cpu=$(calc "$cpu * 1000"); }
      echo "| $name | $(fmt "$real" 1) | $(fmt "$cpu" 1) | $(mark le "$real" 1000) |"
    done
}
