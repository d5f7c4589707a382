#!/usr/bin/env bash
# Every C++ file is laid out as .clang-format says, by clang-format 14 (Debian 12's; other
# versions lay some lines out differently): a file changed without formatting fails here. Fix
# with `clang-format-14 -i FILE`. Run by ctest; exits 77 (skipped) where clang-format-14 is not
# installed (scripts/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=$(command -v clang-format-14 || true)
if [[ -z $formatter ]]; then
  echo "check_format: clang-format-14 is missing (scripts/setup.sh installs it)" >&2
  exit 77
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cc' '*.h')
else  # an unpacked source archive
  mapfile -t files < <(find src bench fuzz -name '*.cc' -o -name '*.h' 2>/dev/null)
fi
bad=()
for f in "${files[@]}"; do
  [[ -f $f ]] || continue
  "$formatter" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "check_format: not formatted (clang-format-14 -i ${bad[*]})" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
