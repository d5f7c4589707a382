#!/bin/bash
# Runs docs/containers.md's recipes for real, with podman, on a local image made without a
# registry (issue 17, item 3):
#   scripts/container_check.sh [-user NAME] [-build DIR | -deb FILE]
#     -user NAME  also run the rootless recipe as this ordinary user (needs /etc/subuid and
#                 /etc/subgid entries for NAME; /dev/fuse is given mode 0666 for that part and
#                 put back afterwards)
#     -build DIR  the CMake build directory scripts/package.sh builds the .deb in (default: build)
#     -deb FILE   a .deb scripts/package.sh built already
# Needs root, podman, debootstrap and dpkg-dev (apt-get install podman debootstrap dpkg-dev; runc
# too where crun cannot run here), and python3-yaml to parse the docs' YAML snippets.
#
# 1. A base image: a minimal Debian rootfs by debootstrap (--variant=minbase, with python3, fuse3
#    and the .deb's libraries) from the first Debian mirror in /etc/apt/sources.list*, imported
#    with `podman import`. The rootfs is kept in $DISKCOND_CONTAINER_CACHE (default
#    /var/tmp/diskcond-container), the image in podman's storage; both are reused.
# 2. The test image: the base plus scripts/package.sh's .deb (`podman build`, no network).
# 3. The recipes on examples/settings-store: its tests natively and under `dmc run ./data 0`, as
#    root in the container with --cap-add SYS_ADMIN (the docs' line), with only the capabilities
#    dmc needs, without them (one line must say what is missing), with /dev/fuse bind-mounted
#    (as a Kubernetes hostPath gives it), as an ordinary user in the container, and rootless;
#    and the docs' Kubernetes and GitHub Actions YAML must parse (they cannot run here).
# Each case prints PASS or FAIL with its wall time; exit 1 when one failed. The example's tests
# "show the slow path" when, under dmc run, saving one record at a time misses its budget (FAIL)
# while saving them together passes (ok).
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
user="" build="$src/build" deb=""
while (($#)); do
  case $1 in
    -user) user=${2:?-user needs a name}; shift 2 ;;
    -build) build=${2:?-build needs a directory}; shift 2 ;;
    -deb) deb=$(realpath "${2:?-deb needs a file}"); shift 2 ;;
    *) echo "container_check: unknown option '$1' (see the comment at the top)" >&2; exit 2 ;;
  esac
done
[[ $(id -u) == 0 ]] || { echo "container_check: needs root (debootstrap, rootful podman)" >&2; exit 1; }
for tool in podman debootstrap dpkg-deb; do
  command -v "$tool" >/dev/null || {
    echo "container_check: $tool is missing (apt-get install podman debootstrap dpkg-dev)" >&2
    exit 1
  }
done
if [[ -n $user ]] && ! id "$user" >/dev/null 2>&1; then
  echo "container_check: no user '$user'" >&2
  exit 1
fi

cache=${DISKCOND_CONTAINER_CACHE:-/var/tmp/diskcond-container}
base=localhost/diskcond-base:bookworm image=localhost/diskcond:check
mirror=$(sed -n 's/^URIs: *\([^ ]*debian\)$/\1/p; s/^deb \(http[^ ]*debian\) .*/\1/p' \
  /etc/apt/sources.list /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
# python3 for the example; fuse3 (fusermount3) for `dmc start` by a user; the libraries the .deb
# depends on (dpkg-shlibdeps), so that `dpkg -i` needs no network.
packages=python3,fuse3,libfuse3-3,libaio1,liburing2,libfmt9,libsqlite3-0
failures=0
log() { printf '%s\n' "$*" >&2; }

# --- 1. base image -----------------------------------------------------------------------------
mkdir -p "$cache"
if ! podman image exists "$base"; then
  if [[ ! -e $cache/rootfs/.complete ]]; then
    rm -rf "$cache/rootfs"
    log "debootstrap bookworm from $mirror (a few minutes) ..."
    debootstrap --variant=minbase --include="$packages" bookworm "$cache/rootfs" \
      "$mirror" >"$cache/debootstrap.log" 2>&1 ||
      { log "container_check: debootstrap failed; see $cache/debootstrap.log"; exit 1; }
    rm -rf "$cache/rootfs/var/cache/apt/archives/"*.deb "$cache/rootfs/var/lib/apt/lists/"*
    touch "$cache/rootfs/.complete"
  fi
  tar -C "$cache/rootfs" --exclude=./.complete -c . | podman import -q - "$base" >/dev/null ||
    { log "container_check: podman import failed"; exit 1; }
fi

# What this machine needs beyond the recipe (printed): crun refuses hybrid cgroup hierarchies
# (v1 with controllers in v2 too), where runc runs; without CAP_SYS_RESOURCE podman cannot raise
# RLIMIT_NOFILE/NPROC to its defaults, so they are given within the hard limits.
runtime_flags() {  # IMAGE [-as USER]: the first of the variants that runs `true` in IMAGE
  local run_image=$1 as=() variant
  [[ ${2:-} == -as ]] && as=(runuser -u "$3" --)
  local limits="--ulimit nofile=$(ulimit -Hn):$(ulimit -Hn) --ulimit nproc=32768:32768"
  for variant in "" "--runtime runc" "|$limits" "--runtime runc|$limits"; do
    # shellcheck disable=SC2086
    if (cd /tmp && "${as[@]}" podman ${variant%%|*} run --rm --network=none \
      $([[ $variant == *"|"* ]] && echo "${variant#*|}") "$run_image" true) >/dev/null 2>&1; then
      echo "$variant"
      return 0
    fi
  done
  return 1
}

local_flags=$(runtime_flags "$base") || { log "container_check: podman cannot run $base here"; exit 1; }
[[ -z $local_flags ]] || log "this machine needs: podman ${local_flags//|/ run }"

# --- 2. test image: the base and the .deb --------------------------------------------------------
if [[ -z $deb ]]; then
  deb=$("$src/scripts/package.sh" "$build") || { log "container_check: package.sh failed"; exit 1; }
fi
[[ -f $deb ]] || { log "container_check: no .deb at $deb"; exit 1; }
context=$(mktemp -d /tmp/diskcond-container.XXXXXX)
trap 'rm -rf "$context"' EXIT
cp "$deb" "$context/diskcond.deb"
cat >"$context/Containerfile" <<EOF
FROM $base
COPY diskcond.deb /tmp/diskcond.deb
RUN dpkg -i /tmp/diskcond.deb && rm /tmp/diskcond.deb && useradd -m -u 1000 tester
EOF
# shellcheck disable=SC2086
podman ${local_flags%%|*} build --network=none -q -t "$image" "$context" >/dev/null ||
  { log "container_check: podman build failed"; exit 1; }
log "image $image: $(basename "$deb"), depends: $(dpkg-deb -f "$deb" Depends)"

# --- 3. the recipes ------------------------------------------------------------------------------
# case_run NAME EXPECT [-as USER] PODMAN-RUN-ARGS... -- COMMAND: runs the command in the image on a
# fresh copy of the example (at /src), prints PASS/FAIL, the wall time and the telling lines.
# EXPECT: "slow" (the example shows the slow path), "native" (both of its tests pass), or a text
# the output must hold (an error line).
n=0
case_run() {
  local name=$1 expect=$2 as=() args=() flags=$local_flags
  shift 2
  if [[ $1 == -as ]]; then as=(runuser -u "$2" --); flags=$user_flags; shift 2; fi
  while [[ $1 != -- ]]; do args+=("$1"); shift; done
  shift
  n=$((n + 1))
  local copy=$context/case-$n
  cp -r "$src/examples/settings-store" "$copy"
  rm -rf "$copy/data" "$copy/__pycache__"
  chmod -R a+rwX "$copy"
  local t0 t1 out ok=0
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  out=$(cd /tmp && "${as[@]}" podman ${flags%%|*} run --rm --network=none \
    $([[ $flags == *"|"* ]] && echo "${flags#*|}") -e PYTHONDONTWRITEBYTECODE=1 "${args[@]}" \
    -v "$copy:/src" -w /src "$image" sh -c "$*" 2>&1 | grep -v 'is not a shared mount')
  t1=$(date +%s.%N)
  case $expect in
    slow) grep -Eq '^test_save_one_at_a_time .*FAIL$' <<<"$out" &&
      grep -Eq '^test_save_all_together .*ok$' <<<"$out" && ok=1 ;;
    native) grep -Eq '^test_save_one_at_a_time .*ok$' <<<"$out" &&
      grep -Eq '^test_save_all_together .*ok$' <<<"$out" && ok=1 ;;
    *) grep -qF -- "$expect" <<<"$out" && ok=1 ;;
  esac
  printf '%s  %-62s %5.1f s\n' "$( ((ok)) && echo PASS || echo FAIL)" "$name" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
  grep -E '^test_|^dmc: ' <<<"$out" | sed 's/^/      /'
  ((ok)) || { failures=$((failures + 1)); sed 's/^/      | /' <<<"$out" | tail -20; }
}

tests='mkdir -p data && dmc run ./data 0 -- python3 -m unittest -v 2>&1'
mode=$(stat -c %a /dev/fuse)
trap 'chmod "$mode" /dev/fuse; rm -rf "$context"' EXIT
log "load before: $(cut -d' ' -f1-3 /proc/loadavg); /dev/fuse mode $mode"

# docs/containers.md's Kubernetes and GitHub Actions snippets cannot run here: they must parse.
if python3 -c 'import yaml' 2>/dev/null; then
  python3 - "$src/docs/containers.md" <<'PY' || failures=$((failures + 1))
import re, sys, yaml
blocks = re.findall(r"```yaml\n(.*?)```", open(sys.argv[1]).read(), re.S)
bad = 0
for i, block in enumerate(blocks, 1):
    try:
        yaml.safe_load(block)
        print("PASS  docs/containers.md yaml block %d parses" % i)
    except yaml.YAMLError as e:
        print("FAIL  docs/containers.md yaml block %d: %s" % (i, str(e).splitlines()[0]))
        bad += 1
sys.exit(1 if bad or not blocks else 0)
PY
else
  log "python3 has no yaml module (apt-get install python3-yaml): the YAML snippets are not parsed"
fi
case_run "natively in the container (no dmc)" native -- 'python3 -m unittest -v 2>&1'
case_run "docs: --device /dev/fuse --cap-add SYS_ADMIN" slow \
  --device /dev/fuse --cap-add SYS_ADMIN -- "$tests"
case_run "least: --cap-drop ALL --cap-add SYS_ADMIN,SETUID,SETGID" slow \
  --device /dev/fuse --cap-drop ALL --cap-add SYS_ADMIN,SETUID,SETGID -- "$tests"
case_run "without SYS_ADMIN (podman's default set): one line" "dmc run needs CAP_SYS_ADMIN" \
  --device /dev/fuse -- "$tests"
case_run "SYS_ADMIN without SETUID,SETGID: one line" "cannot reset credentials" \
  --device /dev/fuse --cap-drop ALL --cap-add SYS_ADMIN -- "$tests"
case_run "without /dev/fuse: one line" "no /dev/fuse" --cap-add SYS_ADMIN -- "$tests"
case_run "/dev/fuse bind-mounted (as a hostPath): one line" "device cgroup does not allow it" \
  -v /dev/fuse:/dev/fuse --cap-add SYS_ADMIN -- "$tests"
if [[ $mode != 666 ]]; then
  case_run "as uid 1000, no capability, /dev/fuse $mode: one line" "not accessible to this user" \
    --device /dev/fuse --user 1000:1000 --cap-drop ALL -- "$tests"
fi
chmod 0666 /dev/fuse
case_run "as uid 1000, no capability, /dev/fuse 0666" slow \
  --device /dev/fuse --user 1000:1000 --cap-drop ALL -- "$tests"
chmod "$mode" /dev/fuse
if [[ -n $user ]]; then
  log "rootless: loading $image into $user's storage ..."
  podman save -q "$image" -o "$context/image.tar" && chmod 755 "$context" &&
    chmod 644 "$context/image.tar" &&
    (cd /tmp && runuser -u "$user" -- podman load -q -i "$context/image.tar") >/dev/null 2>&1 ||
    { log "container_check: cannot load $image as $user"; exit 1; }
  user_flags=$(runtime_flags "$image" -as "$user") ||
    { log "container_check: rootless podman cannot run $image as $user"; exit 1; }
  if [[ $mode != 666 ]]; then
    case_run "rootless ($user), /dev/fuse $mode: one line" "not accessible to this user" \
      -as "$user" --device /dev/fuse --cap-add SYS_ADMIN -- "$tests"
  fi
  chmod 0666 /dev/fuse
  case_run "rootless ($user), /dev/fuse 0666, --cap-add SYS_ADMIN" slow \
    -as "$user" --device /dev/fuse --cap-add SYS_ADMIN -- "$tests"
  case_run "rootless ($user), /dev/fuse 0666, as uid 1000, no capability" slow \
    -as "$user" --device /dev/fuse --user 1000:1000 --cap-drop ALL -- "$tests"
  case_run "rootless ($user), /dev/fuse 0666, root without SYS_ADMIN: one line" \
    "dmc run needs CAP_SYS_ADMIN" -as "$user" --device /dev/fuse -- "$tests"
  chmod "$mode" /dev/fuse
fi
log "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
((failures == 0)) || { log "container_check: $failures case(s) failed"; exit 1; }
log "container_check: all $n cases passed"
