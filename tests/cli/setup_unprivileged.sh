#!/usr/bin/env bash
# scripts/setup.sh as a cluster user runs it: not root, with the packages already installed.
#   1. a missing tool (ninja hidden from PATH) is one line naming it and how to get it, exit 2;
#   2. a Kokkos_ROOT that holds no Kokkos is one line naming the path, exit 2;
#   3. a Kokkos_ROOT with the multiarch layout (lib/<triplet>/cmake/Kokkos) is used: setup builds
#      klmini in the user's own copy of the sources, and the binary runs and verifies.
# In none of them may setup call sudo or apt-get (stand-ins on PATH record any call).
# Needs root to make the unprivileged user (exit 77: skipped otherwise).
# Usage: setup_unprivileged.sh SOURCE_DIR KOKKOS_CMAKE_DIR
set -euo pipefail
src=${1:?source dir} kokkos_cmake=${2:?Kokkos cmake dir}
if [[ $(id -u) -ne 0 ]] || ! command -v useradd >/dev/null; then
  echo "setup_unprivileged: needs root and useradd to make a user; skipped"
  exit 77
fi
user=klmini-setup-test
id "$user" >/dev/null 2>&1 || useradd --no-create-home --shell /bin/bash "$user"
work=$(mktemp -d /tmp/klmini-setup-XXXXXX)
cleanup() { rm -rf "$work"; userdel "$user" 2>/dev/null || true; }
trap cleanup EXIT
chmod 755 "$work"

# The user's copy of the sources: the tracked files (and any new ones), not the build trees.
mkdir "$work/src"
(cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/src")
# Stand-ins for sudo and apt-get that record a call and fail.
mkdir "$work/spy"
for tool in sudo apt-get; do
  printf '#!/bin/sh\necho "%s $*" >> %s/calls\nexit 1\n' "$tool" "$work" > "$work/spy/$tool"
done
chmod 755 "$work/spy"/*
# A PATH without ninja: every program of /usr/bin and /bin but ninja, as links.
mkdir "$work/no-ninja"
for f in /usr/bin/* /bin/*; do
  name=$(basename "$f")
  [[ "$name" == ninja* || -e "$work/no-ninja/$name" ]] || ln -s "$f" "$work/no-ninja/$name"
done
# A multiarch Kokkos prefix made of links into the Kokkos this build uses (prefix/lib/cmake/Kokkos):
# Kokkos' CMake files find their prefix three folders up, which is prefix/lib here, so the
# include and lib folders are linked there too.
kokkos_prefix=$(cd "$kokkos_cmake/../../.." && pwd)
multi="$work/kokkos-multiarch"
mkdir -p "$multi/lib/x86_64-linux-gnu/cmake"
ln -s "$kokkos_prefix/lib/cmake/Kokkos" "$multi/lib/x86_64-linux-gnu/cmake/Kokkos"
[[ -d "$kokkos_prefix/lib/cmake/KokkosKernels" ]] &&
  ln -s "$kokkos_prefix/lib/cmake/KokkosKernels" "$multi/lib/x86_64-linux-gnu/cmake/KokkosKernels"
ln -s "$kokkos_prefix/include" "$multi/lib/include"
ln -s "$kokkos_prefix/lib" "$multi/lib/lib"
chown -R "$user" "$work"

as_user() {  # env assignments, then the command, run as the user in its copy
  runuser -u "$user" -- env -i HOME="$work" LANG=C.UTF-8 "$@"
}
fail() { echo "setup_unprivileged: $*" >&2; exit 1; }
expect_one_line() {  # $1 = rc wanted, $2 = regex, rest = the run
  local want=$1 regex=$2 rc=0 out
  shift 2
  out=$(cd "$work/src" && as_user "$@" scripts/setup.sh 2>&1 >/dev/null) || rc=$?
  echo "$out"
  [[ $rc == "$want" ]] || fail "exit $rc, not $want"
  grep -qE "$regex" <<<"$out" || fail "no line matching: $regex"
  [[ $(grep -c '^setup.sh: missing\|^setup.sh: Kokkos_ROOT' <<<"$out") == 1 ]] || fail "not one line of error"
}

echo "== 1. no ninja on PATH"
expect_one_line 2 "^setup.sh: missing Ninja: Debian 'ninja-build', Spack 'ninja'" PATH="$work/spy:$work/no-ninja"
echo "== 2. a Kokkos_ROOT that holds no Kokkos"
expect_one_line 2 "^setup.sh: Kokkos_ROOT=$work/nowhere holds no KokkosConfig.cmake" \
  PATH="$work/spy:/usr/bin:/bin" Kokkos_ROOT="$work/nowhere"
echo "== 3. a multiarch Kokkos prefix: build and run"
log="$work/setup.log"
(cd "$work/src" && as_user PATH="$work/spy:/usr/bin:/bin" Kokkos_ROOT="$multi" scripts/setup.sh --jobs 2) > "$log" 2>&1 ||
  { tail -30 "$log"; fail "setup failed"; }
grep -q "using the Kokkos at $multi" "$log" || fail "setup did not use the multiarch Kokkos"
out=$(cd "$work/src" && as_user OMP_NUM_THREADS=2 OMP_PROC_BIND=false build/host/bin/klmini --set tokens=64 --set vocab=512 2>&1)
grep -q "^Verification: PASSED" <<<"$out" || { echo "$out"; fail "the user's klmini did not verify"; }
[[ ! -e "$work/calls" ]] || fail "setup called $(cat "$work/calls")"
echo "setup_unprivileged: passed"
