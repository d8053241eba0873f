#!/usr/bin/env bash
# klmini against the Kokkos releases Debian ships beyond the host's own build (.deps/kokkos,
# Kokkos 3.4.01): Debian sid's libkokkos-dev (Kokkos 5.x, OpenMP) and Trilinos' Kokkos with
# Kokkos Kernels (4.5.x, Serial). Sid's libraries need sid's glibc, so each is installed in a
# sid root file system of its own (the two packages install the same files), made by
# debootstrap from Debian's packages alone and cached in .deps/sid/. The repository is
# bind-mounted at /klmini inside a private mount namespace, so no mount outlives a command.
#
# Usage: scripts/kokkos-releases.sh setup [--jobs N]   make the roots (once), build klmini in each
#        scripts/kokkos-releases.sh test                 print each build's version, run its tests
#        scripts/kokkos-releases.sh run ROOT CMD...      run CMD inside ROOT (kokkos5 or trilinos)
# Builds: build/sid-kokkos5, build/sid-trilinos, with Open MPI and Python: the host build's suite
# (the Kokkos Tools, MPI, sweep and packaging tests included) but for what needs the host's tools
# (the fuzzers, the format check, shellcheck, cli/setup_unprivileged) or both OpenMP and Serial
# (mpi/bitwise_loss), and with the Slurm tests skipped (slurm/batch_templates and
# packaging/install_slurm test the scripts, which the host build does).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sid="$root/.deps/sid"
roots=(kokkos5 trilinos)
jobs=$(nproc)

say() { printf '\033[1m[kokkos-releases]\033[0m %s\n' "$*"; }
die() { echo "kokkos-releases: $*" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, chroot and mount): run it with sudo"

# The packages every root installs for its tests beyond the build tools: Python (the Kokkos Tools,
# MPI, layout and packaging checks, scripts/sweep), matplotlib (scripts/plot), Open MPI (klmini's
# MPI build and the mpi/ tests), /usr/bin/time (scripts/time_to_answer.sh) and Lmod (the install
# test's modulefile).
test_packages=(python3 python3-matplotlib openmpi-bin libopenmpi-dev time lmod)

# The packages each root installs beyond the build tools and the test packages.
kokkos_packages() {
  case "$1" in
    kokkos5) echo libkokkos-dev ;;
    # Trilinos' Kokkos Kernels links BLAS and LAPACK by their .so names, which come with -dev.
    trilinos) echo libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev libblas-dev liblapack-dev ;;
    *) die "unknown root '$1' (kokkos5 or trilinos)" ;;
  esac
}

# Runs a command inside a root with the repository at /klmini, /proc and the host's /sys (its
# cgroups included) mounted, in a mount namespace of its own (the mounts vanish with the command,
# whatever way it ends). Open MPI's hwloc reads the CPUs' topology from /sys, and the memory-limit
# tests make a cgroup there.
in_root() {
  local dir="$sid/$1"
  shift
  [[ -f "$dir/.complete" ]] || die "no sid root '$dir': run scripts/kokkos-releases.sh setup"
  # shellcheck disable=SC2016  # the inner shell expands its own arguments
  unshare --mount --propagation private -- sh -c '
    mount --bind "$1" "$2/klmini" && mount -t proc proc "$2/proc" && mount --rbind /sys "$2/sys" || exit 2
    dir=$2; shift 2
    exec chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"' \
    sh "$root" "$dir" "$@"
}

# The machine's own Debian mirror (from scripts/apt-sources.sh), so no host name is written here.
mirror() {
  local uri
  uri=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/klmini.sources 2>/dev/null | head -1)
  [[ -n "$uri" ]] || die "no /etc/apt/sources.list.d/klmini.sources: run scripts/setup.sh first"
  echo "$uri"
}

# A mirror may serve a dated snapshot of sid, whose Release file has expired.
# No pseudo-terminal for dpkg's log: the chroot has no /dev/pts.
apt_in_root=(apt-get -o Acquire::Check-Valid-Until=false -o Acquire::Check-Date=false -o Dpkg::Use-Pty=0
             -y -qq --no-install-recommends)

# apt-get ARGS... inside a root (no mounts needed).
apt_in() {
  local dir="$sid/$1"
  shift
  chroot "$dir" env DEBIAN_FRONTEND=noninteractive "${apt_in_root[@]}" "$@"
}

make_roots() {
  local base="$sid/base" name
  local pending=()
  for name in "${roots[@]}"; do [[ -f "$sid/$name/.complete" ]] || pending+=("$name"); done
  ((${#pending[@]})) || return 0
  command -v debootstrap >/dev/null || die "debootstrap is not installed (scripts/setup.sh --tests installs it)"
  if [[ ! -f "$base/.complete" ]]; then
    say "making a Debian sid root with the build and test tools (.deps/sid/base)"
    rm -rf "$base"
    mkdir -p "$sid"
    debootstrap --variant=minbase sid "$base" "$(mirror)" >"$sid/debootstrap.log" 2>&1 \
      || { tail -20 "$sid/debootstrap.log" >&2; die "debootstrap failed (log: $sid/debootstrap.log)"; }
    mkdir -p "$base/klmini"
    apt_in base update
    apt_in base install \
      g++ cmake ninja-build git libtomlplusplus-dev libcli11-dev nlohmann-json3-dev catch2 "${test_packages[@]}" >/dev/null \
      || die "could not install the build tools and test packages into .deps/sid/base (apt-get's message above)"
    touch "$base/.complete"
  fi
  for name in "${pending[@]}"; do
    say "making the '$name' root ($(kokkos_packages "$name"))"
    rm -rf "${sid:?}/$name"
    cp -a "$base" "$sid/$name"
    touch "$sid/$name/.complete"  # its Kokkos and test packages are installed by setup, every run
  done
  rm -rf "$base"
}

# Installs a root's Kokkos and test packages (a no-op when they are there). A root cached before
# a package joined the lists may hold package lists the mirror has moved past: on failure they
# are updated once and the install tried again.
install_packages() {
  local name=$1 lib packages
  read -ra packages <<<"$(kokkos_packages "$name")"
  packages+=("${test_packages[@]}")
  if ! apt_in "$name" install "${packages[@]}" >/dev/null 2>&1; then
    say "updating the '$name' root's package lists to install ${packages[*]}"
    apt_in "$name" update || die "apt-get update failed in the '$name' root ($sid/$name)"
    apt_in "$name" install "${packages[@]}" >/dev/null \
      || die "could not install ${packages[*]} into the '$name' root (apt-get's message above names the package)"
  fi
  if [[ "$name" == kokkos5 ]]; then
    # Debian's libkokkos-dev 5.2 names libkokkosalgorithms.a and libkokkossimd.a in its CMake
    # targets but does not ship them; upstream they hold one placeholder symbol each, so an
    # empty archive stands in for any that is missing.
    sed -n 's|.*IMPORTED_LOCATION[A-Z_]* "${_IMPORT_PREFIX}/\(lib/[^"]*\.a\)".*|\1|p' \
      "$sid/$name"/usr/lib/*/cmake/Kokkos/KokkosTargets-*.cmake | while read -r lib; do
      [[ -e "$sid/$name/usr/$lib" ]] || ar rc "$sid/$name/usr/$lib"
    done
  fi
}

build_in_roots() {
  local name
  for name in "${roots[@]}"; do
    say "configuring and building klmini against the '$name' root's Kokkos (build/sid-$name)"
    in_root "$name" cmake -S /klmini -B "/klmini/build/sid-$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DKLMINI_HOST_ARCH=native -DKLMINI_MPI=ON -DKLMINI_ENABLE_BENCHMARKS=OFF -DKLMINI_WARNINGS_AS_ERRORS=ON >/dev/null
    in_root "$name" cmake --build "/klmini/build/sid-$name" -j "$jobs"
  done
}

test_in_roots() {
  local name rc=0
  for name in "${roots[@]}"; do
    say "testing build/sid-$name: $(in_root "$name" "/klmini/build/sid-$name/bin/klmini" --version)"
    in_root "$name" ctest --test-dir "/klmini/build/sid-$name" -j 2 --output-on-failure || rc=1
  done
  return "$rc"
}

cmd=${1:-}
(($#)) && shift
case "$cmd" in
  setup)
    while (($#)); do
      case "$1" in
        --jobs) jobs=${2:?--jobs needs a value}; shift 2 ;;
        *) die "unknown argument '$1' (see the header of $0)" ;;
      esac
    done
    make_roots
    for name in "${roots[@]}"; do install_packages "$name"; done
    build_in_roots ;;
  test) test_in_roots ;;
  run) (($# >= 2)) || die "run needs a root and a command"; in_root "$@" ;;
  -h|--help) sed -n '2,16p' "$0" ;;
  *) die "usage: $0 setup|test|run ROOT CMD... (see --help)" ;;
esac
