# shellcheck shell=bash
# Options every bench script takes (sourced before its own option loop, never run).
#   --quick       fewer, shorter runs (QUICK=1)
#   --rounds N    rounds (ROUNDS; default 3, 1 with --quick: see settle_rounds)
#   --out FILE    the report (OUT)

QUICK=0
ROUNDS=

# common_option ARGS...: takes the common option at the front of ARGS, if it is one; sets
# CONSUMED to the words it used (1 or 2), or to 0 when ARGS does not start with a common option.
common_option() {
  CONSUMED=1
  case $1 in
    --quick) QUICK=1 ;;
    --rounds) ROUNDS=${2:?--rounds needs a number}; CONSUMED=2 ;;
    --rounds=*) ROUNDS=${1#*=} ;;
    --out) OUT=${2:?--out needs a file}; CONSUMED=2 ;;
    --out=*) OUT=${1#*=} ;;
    *) CONSUMED=0 ;;
  esac
}

# settle_rounds TOOL: ROUNDS defaults to 1 with --quick and 3 otherwise; anything but a positive
# number is an error (TOOL names the script in the message, exit 2).
settle_rounds() {
  [[ -z $ROUNDS ]] && { ((QUICK)) && ROUNDS=1 || ROUNDS=3; }
  [[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "$1: --rounds must be a positive number" >&2; exit 2; }
}
