#!/usr/bin/env bash
# Checks acc_goal (accuracy_goal.sh) with made-up figures: every kind of row, and the edges of its
# tolerances. Run by ctest (SuiteAccuracyGoal); reports every wrong verdict, then exits non-zero.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$here/../.." && pwd)
# shellcheck source=bench/suite/lib.sh
source "$here/lib.sh"
# shellcheck source=bench/suite/accuracy_goal.sh
source "$here/accuracy_goal.sh"

failures=0
# expect "KIND|CELL" PREDICTED FIO RAWIO FLOOR IDEAL
expect() {
  local want=$1 got
  shift
  got=$(acc_goal "$@")
  if [[ $got != "$want" ]]; then
    echo "acc_goal $*: got '$got', want '$want'" >&2
    failures=$((failures + 1))
  fi
}

# Far below the floor (at most half of it): 2%, both tools.
expect "met|met" 1000 990 1015 10000 -
expect "missed|**not met**" 1000 970 1000 10000 -
expect "missed|**not met**" 1000 1000 1030 10000 -  # too fast is a miss
expect "met|met" 5000 4910 4950 10000 -              # exactly half the floor: still 2%

# Up to 80% of the floor: 5%.
expect "met|met (5%)" 6000 5760 5820 10000 -
expect "missed|**not met** (5%)" 6000 5580 5900 10000 -

# Above 80% of the floor: no verdict, the fractions of the floor.
expect "floor|*near the floor* (asks 90% of it): fio 85%, rawio 88% of it" 9000 8500 8800 10000 -
expect "floor|*floor*: fio 95%, rawio 100% of it" 15000 9500 10000 10000 -

# A QD1 row whose ideal device here is short of the prediction: judged against the ideal device,
# however little it is short (no step at the tolerance).
expect "met|*met here*: fio -1.0%, rawio -1.5% of the ideal" 1000 971 966 10000 981
expect "missed|**not met here**: fio -3.1%, rawio -1.0% of the ideal" 1000 950 970 10000 980
expect "met|*met here* (5%): fio -4.0%, rawio -2.0% of the ideal" 7000 6048 6174 10000 6300
# Above the ideal device but not above the prediction: met (the ideal device's run was slow).
expect "met|*met here*: fio +1.1%, rawio +2.3% of the ideal" 7619 7052 7139 15729 6978
# ... but never faster than the prediction, whatever the ideal device does.
expect "missed|**not met**" 1000 1030 1000 10000 980
# An ideal device at or above the prediction changes nothing.
expect "missed|**not met**" 1000 970 975 10000 1000

# Not measured.
expect "missed|**not measured** (dmc verify failed; see the suite's stderr)" nan 1000 1000 10000 -
expect "missed|**not met**" 1000 nan 1000 10000 -
# No floor measured: the strictest goal.
expect "met|met" 1000 985 990 nan -
expect "missed|**not met**" 1000 970 990 nan -

if ((failures)); then
  echo "accuracy_goal_test: $failures wrong verdict(s)" >&2
  exit 1
fi
echo "accuracy_goal_test: every verdict as expected"
