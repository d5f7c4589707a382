#!/bin/bash
# dmc run's start and stop overhead: the time from starting a command to its first I/O, and the
# whole run, with and without `dmc run DIR 7 --` in front (medians of 20). DIR must hold a file f;
# DIR.run is the run directory. A prefix runs both as another user, e.g.
#   bench/run_overhead.sh build/dmc /tmp/x/d                                        # as root
#   bench/run_overhead.sh build/dmc /tmp/x/d setpriv --reuid=61000 --regid=61000 --clear-groups
# (that user must own DIR and DIR.run, and /dev/fuse must be 0666).
DMC=$1; DIR=$2; shift 2
N=20
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() {  # prints "first_io_ms total_ms" per round
  for i in $(seq $N); do
    t0=$(date +%s%N)
    t1=$("$@" sh -c "date +%s%N; head -c 4096 $DIR/f >/dev/null")
    t2=$(date +%s%N)
    echo "$(( (t1 - t0) / 1000 )) $(( (t2 - t0) / 1000 ))"
  done
}
base=$(measure "$@" env)
run=$(measure "$@" env DISKCOND_RUN_DIR=$DIR.run $DMC run $DIR 7 --)
echo "baseline (no dmc): first I/O $(echo "$base" | awk '{print $1}' | median) us, whole $(echo "$base" | awk '{print $2}' | median) us"
echo "dmc run DIR 7:     first I/O $(echo "$run" | awk '{print $1}' | median) us, whole $(echo "$run" | awk '{print $2}' | median) us"
