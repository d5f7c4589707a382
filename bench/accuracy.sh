#!/usr/bin/env bash
# Accuracy matrix: every built-in profile, every standard workload, predicted vs measured with fio
# and with `dmc verify` (rawio's engine), O_DIRECT, against the mount's floor (a conditioned mount charging next to nothing).
# This is bench/suite.sh's accuracy section (bench/suite/accuracy.sh) on its own; it writes a
# markdown report (default out/accuracy.md; the full suite keeps docs/benchmarks.md) with the
# commands it ran, and every figure behind its medians next to it (report-figures.tsv: key, round,
# value, time, load average). Needs root; about 10 minutes per round (3 rounds), 5 with
# SUITE_ARGS=--quick.
#   bench/accuracy.sh [report.md] [profile indices...]
#   SUITE_ARGS="--quick --rounds 1" bench/accuracy.sh /tmp/acc.md 0 3
set -euo pipefail
cd "$(dirname "$0")/.."
report=${1:-out/accuracy.md}
mkdir -p "$(dirname "$report")"
shift || true
# shellcheck disable=SC2086  # SUITE_ARGS is a list of options
ACCURACY_PROFILES="$*" exec bench/suite.sh --sections accuracy --out "$report" ${SUITE_ARGS:-}
