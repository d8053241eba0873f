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
packages=(g++ cmake ninja-build git pkg-config dpkg-dev xz-utils ca-certificates
          libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev
          libopenmpi-dev openmpi-bin python3 python3-matplotlib shellcheck clang libclang-rt-dev)
# sid roots; the format check; time_to_answer.sh; a one-node Slurm for the batch templates' test
((tests)) && packages+=(debootstrap binutils clang-format time slurmctld slurmd slurm-client munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
catch2_version=$(dpkg-query -W -f='${Version}' catch2 2>/dev/null || true)
need_catch2=0
if [[ -z "$catch2_version" ]] || dpkg --compare-versions "$catch2_version" lt 3; then need_catch2=1; fi

sources_rc=0
as_root "$root/scripts/apt-sources.sh" || sources_rc=$?
if ((sources_rc != 0 && sources_rc != 10)); then exit "$sources_rc"; fi
if ((sources_rc == 10 || ${#missing[@]} > 0 || need_catch2)); then
  say "apt-get update"
  as_root apt-get update -qq
fi
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

# ---- 2. Kokkos ------------------------------------------------------------------------------
find_user_kokkos() {
  local dir prefix_path=${CMAKE_PREFIX_PATH:-}
  for dir in ${Kokkos_ROOT:-} ${prefix_path//:/ }; do
    [[ -n "$dir" ]] || continue
    if compgen -G "$dir/lib*/cmake/Kokkos/KokkosConfig.cmake" >/dev/null || [[ -f "$dir/KokkosConfig.cmake" ]]; then
      echo "$dir"; return 0
    fi
  done
  return 1
}

build_kokkos() {  # $1 = install prefix, $2 = extra Kokkos CMake flags
  local prefix=$1 extra=$2 src="$deps/src/trilinos"
  if [[ ! -d "$src/packages/kokkos" ]]; then
    say "fetching Debian's Trilinos 13.2 source (Kokkos and Kokkos Kernels 3.4.01 inside)"
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
if user_kokkos=$(find_user_kokkos); then
  say "using the Kokkos at $user_kokkos (skipping the Kokkos build)"
fi
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
  as_root "$root/scripts/kokkos-releases.sh" setup --jobs "$jobs"
fi
