#!/usr/bin/env bash
# What a Kokkos install is, read from its CMake package files (nothing is configured or built):
#   scripts/kokkos-info.sh PREFIX                  prints version=, devices=, route=, config=
#   scripts/kokkos-info.sh --require cuda PREFIX   exits 2 with one line unless it has Cuda (4.0+)
#   scripts/kokkos-info.sh --require host PREFIX   exits 2 unless it has OpenMP or Serial (3.4+)
# route: how klmini compiles its Kokkos sources against it: "cmake-cuda-language" (Kokkos built
# with Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE), "nvcc_wrapper" (Cuda through Kokkos'
# compiler wrapper), or "host" (no Cuda).
set -euo pipefail

require=""
if [[ "${1:-}" == "--require" ]]; then
  require=${2:?--require needs cuda or host}
  shift 2
  [[ "$require" == cuda || "$require" == host ]] || { echo "kokkos-info: --require cuda|host" >&2; exit 2; }
fi
prefix=${1:?usage: kokkos-info.sh [--require cuda|host] PREFIX}

config=""
for dir in "$prefix" "$prefix"/lib*/cmake/Kokkos "$prefix"/lib/*/cmake/Kokkos "$prefix"/share/cmake/Kokkos; do
  if [[ -f "$dir/KokkosConfig.cmake" ]]; then config=$(cd "$dir" && pwd); break; fi
done
if [[ -z "$config" ]]; then
  echo "kokkos-info: no Kokkos at $prefix (no KokkosConfig.cmake in it or its lib*/cmake/Kokkos)" >&2
  exit 2
fi

# The value of `set(NAME value)` in a Kokkos CMake file (Kokkos writes SET or set).
cmake_value() {
  sed -n "s/^[[:space:]]*[sS][eE][tT](\"\{0,1\}$1\"\{0,1\}[[:space:]]\{1,\}\"\{0,1\}\([^\")]*\)\"\{0,1\})[[:space:]]*$/\1/p" "$2" | head -1
}
version=$(cmake_value PACKAGE_VERSION "$config/KokkosConfigVersion.cmake" 2>/dev/null || true)
devices=$(cmake_value Kokkos_DEVICES "$config/KokkosConfigCommon.cmake" 2>/dev/null || true)
options=$(cmake_value Kokkos_OPTIONS "$config/KokkosConfigCommon.cmake" 2>/dev/null || true)
[[ -n "$version" ]] || version="unknown"
[[ -n "$devices" ]] || devices="unknown"

has() { [[ ";$2;" == *";$1;"* ]]; }
route=host
if has CUDA "$devices"; then
  if has COMPILE_AS_CMAKE_LANGUAGE "$options"; then route=cmake-cuda-language; else route=nvcc_wrapper; fi
fi

# version >= want, comparing major.minor numerically (Kokkos writes 4.6.01, 4.6.99).
at_least() {
  local have_major have_minor want_major want_minor
  IFS=. read -r have_major have_minor _ <<<"$1"
  IFS=. read -r want_major want_minor _ <<<"$2"
  [[ "$have_major" =~ ^[0-9]+$ && "$have_minor" =~ ^[0-9]+$ ]] || return 1
  ((10#$have_major > want_major || (10#$have_major == want_major && 10#$have_minor >= want_minor)))
}
found="the Kokkos at $config (version $version, backends ${devices//;/, })"
case "$require" in
  cuda)
    has CUDA "$devices" || { echo "kokkos-info: $found has no Cuda: a GPU build needs Kokkos 4.0 or newer with -DKokkos_ENABLE_CUDA=ON" >&2; exit 2; }
    at_least "$version" 4.0 || { echo "kokkos-info: $found is too old: a GPU build needs Kokkos 4.0 or newer (Hopper)" >&2; exit 2; } ;;
  host)
    has OPENMP "$devices" || has SERIAL "$devices" \
      || { echo "kokkos-info: $found has neither OpenMP nor Serial: a host build needs one of them" >&2; exit 2; }
    at_least "$version" 3.4 || { echo "kokkos-info: $found is too old: klmini needs Kokkos 3.4 or newer" >&2; exit 2; } ;;
esac
printf 'version=%s\ndevices=%s\nroute=%s\nconfig=%s\n' "$version" "$devices" "$route" "$config"
