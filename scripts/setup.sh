#!/usr/bin/env bash
# klmini setup from nothing, on Debian (bookworm or newer). Idempotent: rerun it any time.
#   1. installs the system packages klmini needs (apt);
#   2. finds a Kokkos (Kokkos_ROOT or CMAKE_PREFIX_PATH) and checks it has the backends asked
#      for (scripts/kokkos-info.sh), or builds Kokkos 3.4.01 (OpenMP + Serial) and Kokkos
#      Kernels 3.4.01 into .deps/kokkos from Debian's Trilinos 13.2 source;
#   3. with --tests, builds the libFuzzer targets (clang -> build/fuzz);
#   4. configures and builds klmini with the chosen presets (default: host -> build/host; with
#      --tests also the sanitizer build: debug preset, Kokkos with bounds checks, ASan + UBSan;
#      with --cuda the cuda preset -> build/cuda, against your Kokkos with Cuda);
#   5. with --tests, builds klmini against Debian sid's Kokkos 5.x and Trilinos' Kokkos 4.x with
#      Kokkos Kernels, each in a sid root (scripts/kokkos-releases.sh).
# Usage: scripts/setup.sh [--tests] [--cuda] [--preset host|debug ...] [--jobs N]
#        Kokkos_ROOT=/path/to/kokkos-with-cuda scripts/setup.sh --cuda
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps="$root/.deps"
presets=()
tests=0
jobs=$(nproc)
while (($#)); do
  case "$1" in
    --preset) presets+=("${2:?--preset needs a value}"); shift 2 ;;
    --tests) presets+=(host debug); tests=1; shift ;;
    --cuda) presets+=(cuda); shift ;;
    --jobs) jobs=${2:?--jobs needs a value}; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
((${#presets[@]})) || presets=(host)
for preset in "${presets[@]}"; do
  case "$preset" in host|debug|cuda) ;; *) echo "setup.sh: --preset must be host, debug or cuda" >&2; exit 2 ;; esac
done

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

# ---- 1. packages ----------------------------------------------------------------------------
# Debian packages are installed only when one is missing and this user may (root, or sudo
# without a password, on Debian). A user who may not, or a machine that is not Debian, gets
# every dependency checked where CMake and the compiler will look (the system,
# CMAKE_PREFIX_PATH, CPATH): one line for each that is missing, saying how to get it, and exit
# 2. With every package present neither apt nor sudo is called.
packages=(g++ cmake ninja-build git pkg-config dpkg-dev xz-utils ca-certificates
          libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev
          libopenmpi-dev openmpi-bin python3 python3-matplotlib shellcheck clang libclang-rt-dev)
# sid roots; the format check; time_to_answer.sh; a one-node Slurm for the batch templates' test;
# Lmod for the install test's modulefile
((tests)) && packages+=(debootstrap binutils clang-format time slurmctld slurmd slurm-client munge lmod)
on_debian=0
command -v dpkg-query >/dev/null && command -v apt-get >/dev/null && on_debian=1
missing=()
need_catch2=0
if ((on_debian)); then
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  catch2_version=$(dpkg-query -W -f='${Version}' catch2 2>/dev/null || true)
  if [[ -z "$catch2_version" ]] || dpkg --compare-versions "$catch2_version" lt 3; then need_catch2=1; fi
fi

# Whether a C++17 translation unit including <$1> compiles with the compiler CMake will use.
have_header() {
  local flags=() dir prefix_path=${CMAKE_PREFIX_PATH:-}
  for dir in ${prefix_path//:/ }; do flags+=(-I"$dir/include"); done
  printf '#include <%s>\nint main() { return 0; }\n' "$1" |
    "${CXX:-c++}" -std=c++17 -fsyntax-only "${flags[@]}" -x c++ - >/dev/null 2>&1
}
# One line per missing dependency of the build asked for; returns 1 when any is missing.
check_dependencies() {
  local lost=0
  lack() { echo "setup.sh: missing $1: $2" >&2; lost=1; }
  command -v cmake >/dev/null || lack "CMake (3.16 or newer)" "Debian 'cmake', Spack 'cmake', or a cmake on PATH"
  command -v ninja >/dev/null || lack "Ninja" "Debian 'ninja-build', Spack 'ninja', or a ninja on PATH"
  if ! printf 'int main() { return 0; }\n' | "${CXX:-c++}" -std=c++17 -x c++ - -o /dev/null >/dev/null 2>&1; then
    lack "a C++17 compiler (\$CXX, else c++)" "Debian 'g++', Spack 'gcc', or CXX=/path/to/g++"
  fi
  have_header toml++/toml.h || have_header toml++/toml.hpp ||
    lack "toml++ 3" "Debian 'libtomlplusplus-dev', Spack 'tomlplusplus', or CMAKE_PREFIX_PATH=/its/prefix"
  have_header CLI/CLI.hpp || lack "CLI11" "Debian 'libcli11-dev', Spack 'cli11', or CMAKE_PREFIX_PATH=/its/prefix"
  have_header nlohmann/json.hpp ||
    lack "nlohmann-json 3" "Debian 'nlohmann-json3-dev', Spack 'nlohmann-json', or CMAKE_PREFIX_PATH=/its/prefix"
  if ((tests)); then
    have_header catch2/catch_test_macros.hpp ||
      lack "Catch2 3 (for --tests)" "Debian 'catch2' (bookworm-backports), Spack 'catch2@3', or CMAKE_PREFIX_PATH=/its/prefix"
  fi
  have_header benchmark/benchmark.h ||
    echo "setup.sh: note: no Google Benchmark (Debian 'libbenchmark-dev', Spack 'benchmark'): klmini_bench is not built" >&2
  command -v mpicxx >/dev/null ||
    echo "setup.sh: note: no MPI compiler wrapper (Debian 'libopenmpi-dev', Spack 'mpi'): klmini runs one rank" >&2
  return "$lost"
}

# Root, or (only asked when something is missing) sudo without a password, on Debian.
may_install=0
if ((on_debian)) && [[ $(id -u) -eq 0 ]]; then
  may_install=1
elif ((on_debian && (${#missing[@]} > 0 || need_catch2))) && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  may_install=1
fi
if ((may_install)) && ((${#missing[@]} > 0 || need_catch2)); then
  sources_rc=0
  as_root "$root/scripts/apt-sources.sh" || sources_rc=$?
  if ((sources_rc != 0 && sources_rc != 10)); then exit "$sources_rc"; fi
  say "apt-get update"
  as_root apt-get update -qq
  if ((${#missing[@]} > 0)); then
    say "installing ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
  if ((need_catch2)); then  # Catch2 v3: bookworm has 2.13, bookworm-backports 3.x
    # shellcheck source=/dev/null
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    say "installing Catch2 v3 from $codename-backports"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -t "$codename-backports" catch2 \
      || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends catch2
  fi
elif [[ $(id -u) -ne 0 ]] || ((!on_debian)); then
  # Not installing: what the build needs must be there already, wherever it came from.
  check_dependencies || exit 2
fi

# ---- 2. Kokkos ------------------------------------------------------------------------------
# A prefix holds a Kokkos where scripts/kokkos-info.sh (and CMake) look: lib*/cmake/Kokkos,
# lib/<multiarch>/cmake/Kokkos, share/cmake/Kokkos, or the config folder itself.
holds_kokkos() {
  local config
  for config in "$1/KokkosConfig.cmake" "$1"/lib*/cmake/Kokkos/KokkosConfig.cmake \
                "$1"/lib/*/cmake/Kokkos/KokkosConfig.cmake "$1/share/cmake/Kokkos/KokkosConfig.cmake"; do
    [[ -f "$config" ]] && return 0
  done
  return 1
}
# The Kokkos to build against: Kokkos_ROOT (which must hold one: a wrong path is named and
# stops setup, never silently replaced by a Kokkos built here), else the first prefix of
# CMAKE_PREFIX_PATH that holds one.
find_user_kokkos() {
  local dir prefix_path=${CMAKE_PREFIX_PATH:-}
  if [[ -n "${Kokkos_ROOT:-}" ]]; then
    if holds_kokkos "$Kokkos_ROOT"; then echo "$Kokkos_ROOT"; return 0; fi
    echo "setup.sh: Kokkos_ROOT=$Kokkos_ROOT holds no KokkosConfig.cmake (looked in it, lib*/cmake/Kokkos, lib/*/cmake/Kokkos, share/cmake/Kokkos)" >&2
    return 2
  fi
  for dir in ${prefix_path//:/ }; do
    [[ -n "$dir" ]] && holds_kokkos "$dir" && { echo "$dir"; return 0; }
  done
  return 1
}

build_kokkos() {  # $1 = install prefix, $2 = extra Kokkos CMake flags
  local prefix=$1 extra=$2 src="$deps/src/trilinos"
  if [[ ! -d "$src/packages/kokkos" ]]; then
    say "fetching Debian's Trilinos 13.2 source (Kokkos and Kokkos Kernels 3.4.01 inside)"
    if ((!may_install)); then
      echo "setup.sh: no Kokkos found (Kokkos_ROOT, CMAKE_PREFIX_PATH), and building one from Debian's Trilinos source needs root on Debian: point Kokkos_ROOT at a Kokkos 3.4 or newer (Spack 'kokkos')" >&2
      exit 2
    fi
    local sources_rc=0  # deb-src entries for apt-get source
    as_root "$root/scripts/apt-sources.sh" || sources_rc=$?
    if ((sources_rc == 10)); then as_root apt-get update -qq; elif ((sources_rc != 0)); then exit "$sources_rc"; fi
    mkdir -p "$deps/src/download"
    (cd "$deps/src/download" && apt-get source --download-only -qq trilinos)
    local tarball
    tarball=$(ls "$deps"/src/download/trilinos_*.orig.tar.*)
    mkdir -p "$src"
    tar -xf "$tarball" -C "$src" --strip-components=1 --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
    rm -rf "$deps/src/download"
  fi
  say "building Kokkos 3.4.01 into $prefix"
  # shellcheck disable=SC2086  # $extra is a list of flags
  cmake -S "$src/packages/kokkos" -B "$deps/build/kokkos-$(basename "$prefix")" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON $extra >/dev/null
  cmake --build "$deps/build/kokkos-$(basename "$prefix")" -j "$jobs" >/dev/null
  cmake --install "$deps/build/kokkos-$(basename "$prefix")" >/dev/null
  say "building Kokkos Kernels 3.4.01 (BLAS, no default instantiations) into $prefix"
  cmake -S "$src/packages/kokkos-kernels" -B "$deps/build/kernels-$(basename "$prefix")" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DKokkos_ROOT="$prefix" -DKokkosKernels_ADD_DEFAULT_ETI=OFF \
    -DKokkosKernels_ENABLED_COMPONENTS=BLAS >/dev/null
  cmake --build "$deps/build/kernels-$(basename "$prefix")" -j "$jobs" >/dev/null
  cmake --install "$deps/build/kernels-$(basename "$prefix")" >/dev/null
  rm -rf "$deps/build"
}

user_kokkos=""
find_rc=0
user_kokkos=$(find_user_kokkos) || find_rc=$?
((find_rc != 2)) || exit 2
[[ -z "$user_kokkos" ]] || say "using the Kokkos at $user_kokkos (skipping the Kokkos build)"
want_cuda=0
for preset in "${presets[@]}"; do [[ "$preset" != cuda ]] || want_cuda=1; done
if ((want_cuda)) && [[ -z "$user_kokkos" ]]; then
  echo "setup.sh: --cuda needs your Kokkos built with Cuda: Kokkos_ROOT=/path/to/kokkos scripts/setup.sh --cuda" >&2
  exit 2
fi
# Check the user's Kokkos before anything is built: one line naming it, exit 2.
kokkos_route=host
if [[ -n "$user_kokkos" ]]; then
  require=host
  ((want_cuda)) && require=cuda
  info=$("$root/scripts/kokkos-info.sh" --require "$require" "$user_kokkos") || exit 2
  kokkos_route=$(sed -n 's/^route=//p' <<<"$info")
  say "Kokkos $(sed -n 's/^version=//p' <<<"$info") [$(sed -n 's/^devices=//p' <<<"$info")], route $kokkos_route"
fi
kokkos_prefix() {  # the Kokkos a preset builds against when the user gave none
  case "$1" in
    host) echo "$deps/kokkos" ;;
    debug) echo "$deps/kokkos-debug" ;;
  esac
}
for preset in "${presets[@]}"; do
  [[ -z "$user_kokkos" ]] || break
  prefix=$(kokkos_prefix "$preset")
  case "$preset" in
    host) extra="" ;;
    debug) extra="-DCMAKE_BUILD_TYPE=Debug -DKokkos_ENABLE_DEBUG=ON -DKokkos_ENABLE_DEBUG_BOUNDS_CHECK=ON" ;;
  esac
  if [[ ! -f "$prefix/.complete" ]]; then
    build_kokkos "$prefix" "$extra"
    touch "$prefix/.complete"
  fi
done

# ---- 3. fuzz targets (before klmini, whose tests look for them) ---------------------------
if ((tests)); then
  say "building the libFuzzer targets (clang) into build/fuzz"
  CXX=clang++ cmake -S "$root/fuzz" -B "$root/build/fuzz" -G Ninja >/dev/null
  cmake --build "$root/build/fuzz" -j "$jobs"
fi

# ---- 4. klmini ------------------------------------------------------------------------------
for preset in "${presets[@]}"; do
  say "configuring and building klmini (preset $preset)"
  args=()
  [[ -z "$user_kokkos" ]] || args=(-DKokkos_ROOT="$user_kokkos")
  # nvcc_wrapper route: the C++ compiler stays the host one (toml++ never meets nvcc); Kokkos'
  # launcher sends the sources that use Kokkos through nvcc_wrapper.
  if [[ "$preset" == cuda && "$kokkos_route" == nvcc_wrapper ]]; then
    args+=(-DCMAKE_CXX_COMPILER="${NVCC_WRAPPER_DEFAULT_COMPILER:-g++}")
  fi
  # A build folder configured against another Kokkos keeps that one's cached paths: start fresh.
  cache="$root/build/$preset/CMakeCache.txt"
  if [[ -n "$user_kokkos" && -f "$cache" ]] && ! grep -qxF "Kokkos_ROOT:UNINITIALIZED=$user_kokkos" "$cache" \
     && ! grep -qxF "Kokkos_ROOT:PATH=$user_kokkos" "$cache"; then
    args+=(--fresh)
  fi
  (cd "$root" && cmake --preset "$preset" "${args[@]}" >/dev/null)
  cmake --build "$root/build/$preset" -j "$jobs"
  say "done: $root/build/$preset/bin/klmini"
done

# ---- 5. the other Kokkos releases (tests) -------------------------------------------------
if ((tests)); then
  if ((may_install)); then
    as_root "$root/scripts/kokkos-releases.sh" setup --jobs "$jobs"
  else
    say "skipping the builds against Kokkos 4.x and 5.x: their Debian sid roots need root (scripts/kokkos-releases.sh)"
  fi
fi
