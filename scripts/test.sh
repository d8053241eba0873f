#!/usr/bin/env bash
# The whole test suite, after scripts/setup.sh --tests: the host build (Kokkos 3.4.01 with
# Kokkos Kernels, OpenMP + Serial, MPI), the sanitizer build, and the builds against Debian
# sid's Kokkos 5.x and Trilinos' Kokkos 4.x with Kokkos Kernels (scripts/kokkos-releases.sh).
# Each build's `klmini --version` is printed before its tests; every build is tested even
# when an earlier one fails, and the exit code says whether all passed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { printf '\033[1m[test]\033[0m %s\n' "$*"; }

rc=0
for preset in host debug; do
  [[ -x "build/$preset/bin/klmini" ]] || { echo "test.sh: no build/$preset: run scripts/setup.sh --tests" >&2; exit 2; }
  say "build/$preset: $(ASAN_OPTIONS=detect_leaks=0 "build/$preset/bin/klmini" --version)"
  ctest --preset "$preset" || rc=1
done
scripts/kokkos-releases.sh test || rc=1
exit "$rc"
