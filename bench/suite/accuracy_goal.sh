# shellcheck shell=bash
# The accuracy section's verdict on one row (issue 18's goal), kept apart from the measuring so
# that bench/suite/accuracy_goal_test.sh can check it with made-up figures. Needs lib.sh.
#
# The goal depends on how much of the mount's floor here (what it delivers with the model charging
# next to nothing) the prediction asks for: at most half of it, within 2% (fio and rawio both); up
# to 80% of it, within 5%; more, and the row shows the fractions of the floor achieved instead of a
# verdict.
# A QD1 row whose ideal device (one of the model's speed on this machine: no FUSE, no model; it
# completes each request on time and wakes the sleeping caller) falls short of the prediction is
# judged against the ideal device: waking the caller costs the machine that much whatever the
# device. Then the row meets its goal from the tolerance below the ideal device up to the
# prediction: an ideal device measured a little slow (its own run's noise) does not make a mount
# that beats it a miss. Never faster holds either way: more than the tolerance above the
# prediction misses.

ACC_NEAR_SHARE=0.5 ACC_NEAR_TOLERANCE=0.02  # a prediction at most half the floor: 2%
ACC_FAR_SHARE=0.8 ACC_FAR_TOLERANCE=0.05    # up to 80% of it: 5%

# acc_goal PREDICTED FIO RAWIO FLOOR IDEAL -> "KIND|CELL": KIND is met, missed or floor (no goal
# here); CELL the table's Goal cell. Figures in one unit (IOPS); "nan" or "-" when not measured.
acc_goal() {
  local pred=$1 fio=${2/nan/0} raw=${3/nan/0} floor=$4 ideal=$5 tol note="" ferr rerr against
  if ! is_num "$pred"; then
    echo "missed|**not measured** (dmc verify failed; see the suite's stderr)"
    return
  fi
  if is_num "$floor" && ! le "$pred" "$(calc "$floor * $ACC_FAR_SHARE")"; then
    local what="*floor*"
    le "$pred" "$floor" && what="*near the floor* (asks $(fmt "$(calc "$pred / $floor * 100")")% of it)"
    echo "floor|$what: fio $(fmt "$(calc "$fio / $floor * 100")")%, rawio $(fmt "$(calc "$raw / $floor * 100")")% of it"
    return
  fi
  # 2%, or 5% beyond half the floor; with no floor measured, the strictest.
  tol=$ACC_NEAR_TOLERANCE
  if is_num "$floor" && ! le "$pred" "$(calc "$floor * $ACC_NEAR_SHARE")"; then
    tol=$ACC_FAR_TOLERANCE note=" (5%)"
  fi
  ferr=$(calc "$fio / $pred - 1") rerr=$(calc "$raw / $pred - 1")
  if abs_le "$ferr" "$tol" && abs_le "$rerr" "$tol"; then
    echo "met|met$note"
    return
  fi
  if ! is_num "$ideal" || ge "$ideal" "$pred" || ! le "$ferr" "$tol" || ! le "$rerr" "$tol"; then
    echo "missed|**not met**$note"
    return
  fi
  ferr=$(calc "$fio / $ideal - 1") rerr=$(calc "$raw / $ideal - 1")
  against="fio $(pct "$ferr"), rawio $(pct "$rerr") of the ideal"
  if ge "$ferr" "-$tol" && ge "$rerr" "-$tol"; then
    echo "met|*met here*$note: $against"
  else
    echo "missed|**not met here**$note: $against"
  fi
}
