#!/usr/bin/env bash
# The main job. Conditions a scratch directory as a "Faulty 5400 HDD", measures it with rawio
# before and while conditioned, checks the mount against the disk model (dmc verify), prints the
# runs side by side with the slowdown per test, draws them, and cleans up.
#   scripts/demo.sh            (run by ./run.sh demo, as root)
# Outputs: out/demo/rawio.db (the two runs), out/demo/demo.svg and demo.png (the plot).
set -euo pipefail
cd "$(dirname "$0")/.."
dmc=build/dmc
rawio=build/rawio
out=out/demo
mkdir -p "$out"
db="$out/rawio.db"
rm -f "$db"
# Keep the demo's settings out of the system's store.
export DISKCOND_STATE_DIR="$PWD/$out/state"
scratch=$(mktemp -d /var/tmp/diskcond-demo.XXXXXX)
cleanup() {
  "$dmc" stop "$scratch" -force >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*"; }

# ./run.sh demo has just built: let the machine write that back before anything is measured, so
# that neither rawio run nor dmc verify competes with it (on the 2-core VM, one verify run with
# 2.4 GB of dirty data in the page cache: RND4K Q1 write -6.6%, against -0.4% and -0.7% without).
sync

step "dmc list"
"$dmc" list

step "rawio on $scratch as it is (native)"
"$rawio" -a -v 1 -i native -n 64m -t 3s --save --db "$db" "$scratch"

step "sudo dmc start $scratch 0"
"$dmc" start "$scratch" 0
"$dmc" status "$scratch" | head -n 2

step "rawio on the same directory, now a Faulty 5400 HDD"
"$rawio" -a -v 1 -i faulty-5400-hdd -n 64m -t 5s --save --db "$db" "$scratch"

step "dmc verify $scratch: the mount against the disk model"
# Exit 6 means it measured, and a workload missed by more than 5% (a busy machine can do that):
# the demo shows it and goes on. Any other failure stops the demo.
"$dmc" verify "$scratch" || { rc=$?; ((rc == 6)) || exit "$rc"; echo "(a workload missed its prediction on this run)"; }

step "dmc stop $scratch: the directory is back"
"$dmc" stop "$scratch"
"$dmc" status "$scratch" | head -n 1

step "rawio report: the two runs side by side"
"$rawio" report --db "$db" --last 2 --plot "$out/demo.svg"
"$rawio" report --db "$db" --last 2 | awk '
  $1 == "native" { for (i = 2; i <= 8; i += 2) native[i] = $i }
  $1 == "faulty-5400-hdd" { for (i = 2; i <= 8; i += 2) hdd[i] = $i }
  END {
    split("Random read,Sequential read,Random write,Sequential write", name, ",")
    printf "\nSlowdown (native K/sec / conditioned K/sec):\n"
    for (i = 2; i <= 8; i += 2) if (hdd[i] > 0) printf "  %-17s %8.0fx\n", name[i / 2], native[i] / hdd[i]
  }'
if command -v rsvg-convert >/dev/null; then
  rsvg-convert "$out/demo.svg" -o "$out/demo.png"
  echo "plot: $out/demo.svg and $out/demo.png"
else
  echo "plot: $out/demo.svg"
fi
