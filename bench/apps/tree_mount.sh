# Sourced by the small apps scripts (cold_tree.sh, cp_after_untar.sh): a scratch directory $S
# (removed on exit, with its mount stopped) holding the benchmark tree's tarball ($S/tree.tar,
# $N files, bench/apps/make_tree.py) and $S/disk conditioned with profile $P by $DMC.
# Usage: tree_mount_setup NAME (NAME: part of the scratch directory's name). REQUIRES: REPO, DMC, P, N.
tree_mount_setup() {
  S=$(mktemp -d "/var/tmp/diskcond-$1.XXXXXX")
  export DISKCOND_STATE_DIR=$S/state
  trap '"$DMC" stop "$S/disk" >/dev/null 2>&1; rm -rf "$S"' EXIT
  mkdir -p "$S/disk" "$S/tree"
  python3 "$REPO/bench/apps/make_tree.py" "$S/tree" "$N" >/dev/null
  tar --sort=name -cf "$S/tree.tar" -C "$S/tree" .
  "$DMC" start "$S/disk" "$P" >/dev/null
}
