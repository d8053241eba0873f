#!/usr/bin/env bash
# An installed klmini, used as a cluster user would: `cmake --install` of the build into a
# temporary prefix, `module use PREFIX/share/klmini/modulefiles; module load klmini` with Lmod,
# then, from a folder outside the project, klmini, klmini-sweep and klmini-plot from the prefix.
# Checks the installed files (the decks the same as inputs/), that the module puts the prefix's
# bin/ on PATH with the version CMake has and names the decks' and templates' folders, that the
# sweep's points are ok and ran the prefix's klmini on the prefix's deck with a loss line in each
# log, that the plots are PNGs, that a sweep or plot copied to a prefix without klmini or
# plot.py says where it looked, and that unloading the module takes the prefix off PATH.
# With --slurm, instead of the sweep: the installed cpu.sbatch, submitted to the one-node cluster
# of tests/slurm/local_cluster.sh, as installed and as a copy edited elsewhere (found through the
# module's KLMINI_SLURM), and a copy without the module refused.
#   [CMAKE=cmake] tests/packaging/install_test.sh PROJECT_ROOT BUILD_DIR VERSION [--slurm]
# Exit 77 (skipped) without Lmod or without a Python with matplotlib; with --slurm also without
# root or without Debian's slurmctld, slurmd and munge (as slurm/batch_templates).
set -uo pipefail
usage="usage: install_test.sh PROJECT_ROOT BUILD_DIR VERSION [--slurm]"
project=${1:?$usage}
build=${2:?$usage}
version=${3:?$usage}
slurm=0
case "${4:-}" in
  --slurm) slurm=1 ;;
  "") ;;
  *) echo "$usage" >&2; exit 2 ;;
esac

lmod_init=""
for init in "${LMOD_PKG:+$LMOD_PKG/init/bash}" /usr/share/lmod/lmod/init/bash; do
  [[ -n "$init" && -f "$init" ]] && { lmod_init=$init; break; }
done
[[ -n "$lmod_init" ]] || { echo "skipped: no Lmod (scripts/setup.sh --tests installs Debian's lmod)"; exit 77; }
have_matplotlib=0
for py in /usr/bin/python3 python3; do
  command -v "$py" >/dev/null && "$py" -c "import matplotlib" 2>/dev/null && have_matplotlib=1
done
((have_matplotlib)) || { echo "skipped: no Python 3 with matplotlib (scripts/setup.sh installs python3-matplotlib)"; exit 77; }
if ((slurm)); then
  # shellcheck source=tests/slurm/local_cluster.sh
  source "$project/tests/slurm/local_cluster.sh"
  [[ $(id -u) -eq 0 ]] || { echo "skipped: slurmd needs root"; exit 77; }
  absent=$(cluster_tools_missing)
  [[ -z "$absent" ]] || { echo "skipped: missing $absent (scripts/setup.sh --tests installs Slurm and munge)"; exit 77; }
fi

work=$(mktemp -d)
if ((slurm)); then
  trap 'cluster_stop "$work/cluster"; rm -rf "$work"' EXIT
else
  trap 'rm -rf "$work"' EXIT
fi
fail() {
  echo "FAILED: $*" >&2
  for log in "$work"/install.log "$work"/user/*.out; do
    [[ -f "$log" ]] && { echo "--- $log" >&2; tail -n 30 "$log" >&2; }
  done
  exit 1
}
# Lmod's module command runs code of its own in this shell, which is not written for set -u.
lmod() {
  local rc
  set +u
  module "$@"
  rc=$?
  set -u
  return "$rc"
}
# PNG files begin with the bytes 0x89 'P' 'N' 'G'.
is_png() { [[ -s "$1" && $(head -c 4 "$1" | od -An -tx1 | tr -d ' \n') == 89504e47 ]]; }

# 1. The install: every file in place, the decks as in the project.
prefix=$work/prefix
"${CMAKE:-cmake}" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || fail "cmake --install $build --prefix $prefix"
for exe in bin/klmini bin/klmini-sweep bin/klmini-plot share/klmini/slurm/cpu.sbatch share/klmini/slurm/gpu.sbatch; do
  [[ -x "$prefix/$exe" ]] || fail "$exe is not installed as an executable"
done
modulefile=$prefix/share/klmini/modulefiles/klmini/$version.lua
for file in share/klmini/python/plot.py share/klmini/slurm/common.sh "${modulefile#"$prefix"/}"; do
  [[ -s "$prefix/$file" ]] || fail "$file is not installed"
done
diff -r "$project/inputs" "$prefix/share/klmini/inputs" >/dev/null || fail "the installed decks differ from inputs/"
grep -qF "$prefix" "$modulefile" || fail "the modulefile does not name the prefix: $(cat "$modulefile")"

# 2. The module: the prefix's bin/ first on PATH, the folders named, the version CMake has.
mkdir -p "$work/user"
cd "$work/user" || exit 1
set +u
# shellcheck source=/dev/null
source "$lmod_init" >/dev/null
set -u
lmod --version 2>&1 | grep -q "Lua" || fail "$lmod_init does not give Lmod's module command"
lmod use "$prefix/share/klmini/modulefiles" || fail "module use $prefix/share/klmini/modulefiles"
lmod load klmini || fail "module load klmini"
lmod -t list 2>&1 | grep -qx "klmini/$version" || fail "module list: $(lmod -t list 2>&1)"
for exe in klmini klmini-sweep klmini-plot; do
  [[ $(type -P "$exe") == "$prefix/bin/$exe" ]] || fail "$exe on PATH is $(type -P "$exe"), not the prefix's"
done
[[ "${KLMINI_INPUTS:-}" == "$prefix/share/klmini/inputs" ]] || fail "KLMINI_INPUTS is '${KLMINI_INPUTS:-}'"
[[ "${KLMINI_SLURM:-}" == "$prefix/share/klmini/slurm" ]] || fail "KLMINI_SLURM is '${KLMINI_SLURM:-}'"
version_line=$(klmini --version 2>&1 | head -n 1)
[[ "$version_line" == "klmini $version "* ]] || fail "klmini --version: '$version_line', expected klmini $version"
echo "installed into $prefix; module klmini/$version: $version_line"

# A log of the sweep ran the prefix's klmini on DECK, produced a finite loss and passed.
check_point_log() {
  local log=$1 deck=$2
  head -n 1 "$log" | grep -qF "\$ $prefix/bin/klmini $deck " || fail "$log did not run $prefix/bin/klmini $deck: $(head -n 1 "$log")"
  grep -Eq '^loss: -?[0-9]+\.[0-9]+(e[-+]?[0-9]+)?$' "$log" || fail "$log has no loss line: $(grep -i loss "$log")"
  grep -q '^Verification: PASSED' "$log" || fail "$log: $(grep Verification "$log")"
}
# points.csv has N points, each ok (its status column).
check_points() {
  local csv=$1 n=$2 rows
  rows=$(tail -n +2 "$csv" | wc -l)
  [[ "$rows" -eq "$n" ]] || fail "$csv has $rows points, expected $n: $(cat "$csv")"
  [[ $(tail -n +2 "$csv" | awk -F, '$7 != "ok"' | wc -l) -eq 0 ]] || fail "a point is not ok: $(cat "$csv")"
}

if ((!slurm)); then
  # 3. A small sweep and its plots, from the prefix, on one of the installed decks (by name), on
  # serial where it is compiled in, else on the first backend klmini --version lists.
  compiled=$(sed -n 's/.*Kokkos [0-9.]* \[\([a-z, ]*\)\].*/\1/p' <<<"$version_line")
  backend=serial
  [[ ", $compiled," == *", serial,"* ]] || backend=${compiled%%,*}
  [[ -n "$backend" ]] || fail "klmini --version lists no backends: $version_line"
  deck=$prefix/share/klmini/inputs/seed-v4096.toml
  klmini-sweep --backends "$backend" --vocab 64,128 --tokens 4 --set repeats=2 --set warmup=0 --deck seed-v4096.toml \
    --out sweep >sweep.out 2>&1 || fail "klmini-sweep: $(tail -n 5 sweep.out)"
  grep -q "2/2 points ok" sweep.out || fail "klmini-sweep: $(tail -n 3 sweep.out)"
  check_points sweep/points.csv 2
  for log in sweep/logs/"$backend"-t4-v64-r1.log sweep/logs/"$backend"-t4-v128-r1.log; do check_point_log "$log" "$deck"; done
  [[ $(tail -n +2 sweep/results.csv | wc -l) -ge 2 ]] || fail "sweep/results.csv has fewer rows than points"
  klmini-plot sweep/results.csv --out plots >plot.out 2>&1 || fail "klmini-plot: $(tail -n 5 plot.out)"
  for png in vocab_time_"$backend" vocab_bandwidth_"$backend"; do
    is_png "plots/$png.png" || fail "klmini-plot wrote no $png.png: $(ls plots 2>&1)"
  done

  # 4. Copied into a prefix without klmini (or plot.py), they say where they looked; an unknown
  # deck name is refused with the decks' folder named.
  mkdir -p "$work/bare/bin"
  cp "$prefix/bin/klmini-sweep" "$prefix/bin/klmini-plot" "$work/bare/bin/"
  "$work/bare/bin/klmini-sweep" --backends "$backend" --vocab 64 --out bare >bare.out 2>&1
  rc=$?
  if [[ $rc -ne 2 ]] || ! grep -qF "$work/bare/bin/klmini" bare.out; then
    fail "klmini-sweep without klmini: exit $rc: $(cat bare.out)"
  fi
  "$work/bare/bin/klmini-plot" sweep/results.csv --out bare >bare.out 2>&1
  rc=$?
  if [[ $rc -ne 2 ]] || ! grep -qF "share/klmini/python/plot.py" bare.out; then
    fail "klmini-plot without plot.py: exit $rc: $(cat bare.out)"
  fi
  klmini-sweep --deck no_such_deck.toml --out bad >bad.out 2>&1
  rc=$?
  if [[ $rc -ne 2 ]] || ! grep -qF "$prefix/share/klmini/inputs" bad.out; then
    fail "an unknown deck: exit $rc: $(cat bad.out)"
  fi
  [[ ! -e bare && ! -e bad ]] || fail "a refused sweep created its output folder"
  echo "sweep of 2 points, plots and refusals as expected"
else
  # 3. The installed cpu.sbatch, submitted from outside the project with no --klmini or --deck:
  # the prefix's tools and deck.
  cluster_start "$work/cluster" || fail "the test cluster did not start"
  submit() {  # NAME TEMPLATE ARGS...: waits for the job; sets job, its state and exit code
    local name=$1
    shift
    job=$(sbatch --parsable --wait --job-name="$name" --output="$work/user/$name.out" "$@")
    state=$(scontrol show job "$job" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    exit_code=$(scontrol show job "$job" | sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p')
    echo "job $job ($name): $state, exit code $exit_code"
  }
  small=(--tokens 64 --set repeats=2 --set warmup=0)
  deck=$prefix/share/klmini/inputs/seed-v4096.toml
  submit installed "$KLMINI_SLURM/cpu.sbatch" --vocab 128,256 --out results/installed "${small[@]}"
  [[ "$state" == COMPLETED && "$exit_code" == 0:0 ]] || fail "installed cpu.sbatch: $state $exit_code"
  out=$work/user/results/installed
  check_points "$out/vocab/points.csv" 2
  for log in "$out"/vocab/logs/*.log "$out"/threads/logs/*.log; do check_point_log "$log" "$deck"; done
  for png in vocab_time_openmp vocab_bandwidth_openmp threads_openmp; do
    is_png "$out/plots/$png.png" || fail "plot $png.png missing from $out/plots"
  done

  # 4. A copy with its #SBATCH lines edited, in the user's folder: common.sh and the tools come
  # through the module's KLMINI_SLURM.
  sed 's/^#SBATCH --time=.*/#SBATCH --time=00:10:00/' "$KLMINI_SLURM/cpu.sbatch" >my-cpu.sbatch
  submit copy "$work/user/my-cpu.sbatch" --vocab 128 --out results/copy "${small[@]}"
  [[ "$state" == COMPLETED && "$exit_code" == 0:0 ]] || fail "the edited copy: $state $exit_code"
  check_points "$work/user/results/copy/vocab/points.csv" 1
  for log in "$work"/user/results/copy/vocab/logs/*.log; do check_point_log "$log" "$deck"; done

  # 5. The same copy without the module: refused, saying what to do.
  (lmod unload klmini && submit nomodule "$work/user/my-cpu.sbatch" --vocab 128 --out results/nomodule "${small[@]}" \
    && [[ "$state" == FAILED && "$exit_code" == 2:0 ]]) || fail "the copy without the module was not refused (exit 2)"
  grep -q "load the klmini module" nomodule.out || fail "the copy without the module: $(cat nomodule.out)"
  echo "installed cpu.sbatch, an edited copy and a copy without the module as expected"
fi

# The module unloads cleanly: the prefix leaves PATH and the variables go.
lmod unload klmini || fail "module unload klmini"
[[ $(type -P klmini || true) != "$prefix/bin/klmini" ]] || fail "klmini is still the prefix's after module unload"
[[ -z "${KLMINI_INPUTS:-}${KLMINI_SLURM:-}" ]] || fail "module unload left KLMINI_INPUTS or KLMINI_SLURM set"
echo "install test passed"
