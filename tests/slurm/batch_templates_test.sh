#!/usr/bin/env bash
# The Slurm batch templates, submitted for real to a one-node cluster started for the test
# (tests/slurm/local_cluster.sh), as a user would: from a folder outside the project, with small
# sizes. Checks each job's state and exit code, its results CSV and plots, that a resubmission
# resumes, that a failing point fails the job, that gpu.sbatch takes its rank counts from the
# allocation, that ranks start with srun inside a job, bound to one core each (the masks the
# ranks report), and that the sweep runs under srun itself.
#   tests/slurm/batch_templates_test.sh PROJECT_ROOT KLMINI
# Exit 77 (skipped) without root or without Debian's slurmctld, slurmd and munge.
set -uo pipefail
project=${1:?usage: batch_templates_test.sh PROJECT_ROOT KLMINI}
klmini=${2:?usage: batch_templates_test.sh PROJECT_ROOT KLMINI}
# shellcheck source=tests/slurm/local_cluster.sh
source "$project/tests/slurm/local_cluster.sh"
[[ $(id -u) -eq 0 ]] || { echo "skipped: slurmd needs root"; exit 77; }
absent=$(cluster_tools_missing)
[[ -z "$absent" ]] || { echo "skipped: missing $absent (scripts/setup.sh --tests installs Slurm and munge)"; exit 77; }

work=$(mktemp -d)
trap 'cluster_stop "$work/cluster"; rm -rf "$work"' EXIT
fail() {
  echo "FAILED: $*" >&2
  for log in "$work"/user/*.out "$work"/cluster/slurmctld.log "$work"/cluster/slurmd.log; do
    [[ -f "$log" ]] && { echo "--- $log" >&2; tail -n 30 "$log" >&2; }
  done
  exit 1
}
cluster_start "$work/cluster" || fail "the test cluster did not start"
mkdir -p "$work/user"
cd "$work/user" || exit 1

# submit NAME SBATCH_ARGS... -- TEMPLATE ARGS...: waits for the job; sets job, its state and exit code.
submit() {
  local name=$1 sbatch_args=()
  shift
  while [[ "$1" != "--" ]]; do sbatch_args+=("$1"); shift; done
  shift
  job=$(sbatch --parsable --wait --job-name="$name" --output="$work/user/$name.out" "${sbatch_args[@]}" "$@")
  state=$(scontrol show job "$job" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  exit_code=$(scontrol show job "$job" | sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p')
  echo "job $job ($name): $state, exit code $exit_code"
}
rows() { tail -n +2 "$1" | wc -l; }
small=(--tokens 64 --set repeats=2 --set warmup=0 --klmini "$klmini")

# 1. cpu.sbatch from outside the project: two vocab points, then the thread sweep, then plots.
submit cpu1 -- "$project/scripts/slurm/cpu.sbatch" --vocab 128,256 --out results/cpu "${small[@]}"
[[ "$state" == COMPLETED && "$exit_code" == 0:0 ]] || fail "cpu.sbatch: $state $exit_code, expected COMPLETED 0:0"
out=$work/user/results/cpu
[[ $(rows "$out/vocab/points.csv") -eq 2 ]] || fail "expected 2 vocab points in $out/vocab/points.csv"
grep -q ",error,\|verification failed" "$out/vocab/points.csv" && fail "a point failed: $(cat "$out/vocab/points.csv")"
# Every run writes a row per variant and ceiling: at least one per point.
[[ $(rows "$out/vocab/results.csv") -ge 2 ]] || fail "results.csv has fewer rows than points"
cut -d, -f10 "$out/vocab/results.csv" | sort -u | grep -qx 64 || fail "results.csv does not record tokens = 64"
for png in vocab_time_openmp vocab_bandwidth_openmp threads_openmp; do
  [[ -s "$out/plots/$png.png" ]] || fail "plot $png.png missing from $out/plots"
done
# The threads sweep ran on the allocation's cores: 1 and nproc.
grep -q "omp1" "$out/threads/points.csv" || fail "the thread sweep has no 1-thread point"

# 2. Resubmitted with one more vocab: the finished points are skipped, only the new one runs.
submit cpu2 -- "$project/scripts/slurm/cpu.sbatch" --vocab 128,256,512 --out results/cpu "${small[@]}"
[[ "$state" == COMPLETED ]] || fail "the resubmission: $state $exit_code"
[[ $(grep -c "ok before, skipped" cpu2.out) -ge 2 ]] || fail "the resubmission did not skip the finished points"
[[ $(rows "$out/vocab/points.csv") -eq 3 ]] || fail "expected 3 vocab points after resuming: $(cat "$out/vocab/points.csv")"

# 3. A point that fails (an unknown deck key, through the environment) fails the job.
KLMINI_SET="no_such_key=1" KLMINI_VOCAB=128 KLMINI_OUT="$work/user/results/bad" KLMINI_TOKENS=64 KLMINI="$klmini" \
  submit bad -- "$project/scripts/slurm/cpu.sbatch"
[[ "$state" == FAILED && "$exit_code" == 1:0 ]] || fail "a failing point: $state $exit_code, expected FAILED 1:0"
grep -q ",error,2," "$work/user/results/bad/vocab/points.csv" || fail "the bad point is not recorded as an error (exit 2)"
grep -q "no_such_key" "$work/user/results/bad/vocab/logs/"*.log || fail "the bad point's log does not name the key"

# 4. gpu.sbatch's rank sweep, on the OpenMP backend (this node has no GPU): the rank counts come
# from the allocation (0 GPUs, 2 tasks: ranks 1 and 2); 2 ranks start with srun and the MPI
# plugin the probe found, each bound to its own core, which each rank reports from its own mask.
submit ranks --gpus-per-node=0 --ntasks-per-node=2 -- "$project/scripts/slurm/gpu.sbatch" --backend openmp \
  --vocab 128 --out results/ranks "${small[@]}"
[[ "$state" == COMPLETED && "$exit_code" == 0:0 ]] || fail "gpu.sbatch: $state $exit_code"
grep -q "^allocation: 0 GPU(s) and 2 task(s) on this node; ranks 1,2;" ranks.out \
  || fail "gpu.sbatch did not take 2 tasks and no GPU from the allocation: $(grep allocation ranks.out)"
[[ $(rows "$work/user/results/ranks/points.csv") -eq 2 ]] || fail "expected the points r1 and r2"
log=$work/user/results/ranks/logs/openmp-t64-v128-r2.log
head -n 1 "$log" | grep -q '^\$ srun -n 2 --mpi=[a-z0-9_]* --cpus-per-task=1 --cpu-bind=cores ' \
  || fail "2 ranks were not started by srun with a plugin and bound cores: $(head -n 1 "$log")"
grep -q "^  ranks  *2 (MPI" "$log" || fail "klmini did not see 2 ranks: $(grep ranks "$log")"
# The CPUs each rank's mask allows, as the rank read them: one core each, not the same one.
masks=$(sed -n 's/^  rank \([01]\)  *host .*, local rank \1, 1 thread on CPUs \([0-9]*\); no GPU$/\2/p' "$log")
[[ $(wc -l <<<"$masks") -eq 2 && $(sort -u <<<"$masks" | wc -l) -eq 2 ]] \
  || fail "the 2 ranks' masks are not one core each, different: $(grep '^  rank [0-9]' "$log")"
for cpu in $masks; do
  ((cpu < $(nproc))) || fail "a rank's CPU $cpu is not one of the node's $(nproc)"
done
echo "gpu.sbatch: ranks 1,2 from the allocation; the 2 ranks' own masks: CPUs $(xargs <<<"$masks")"
[[ -s "$work/user/results/ranks/plots/ranks_openmp.png" ]] || fail "the rank-scaling plot is missing"

# 5. The sweep started by srun itself: one task runs its points as plain processes (klmini does not
# take the task's variables for an MPI launch); several tasks are refused with a reason.
srun -n 1 -c "$(nproc)" "$project/scripts/sweep" --klmini "$klmini" --backends openmp --vocab 128 --tokens 64 \
  --set repeats=2 --out "$work/user/results/srun" > srun1.out 2>&1 || fail "srun -n 1 scripts/sweep: $(tail -n 3 srun1.out)"
grep -q "1/1 points ok" srun1.out || fail "srun -n 1 scripts/sweep: $(tail -n 3 srun1.out)"
srun -n 2 "$project/scripts/sweep" --klmini "$klmini" --vocab 128 --out "$work/user/results/srun2" > srun2.out 2>&1 \
  && fail "srun -n 2 scripts/sweep was not refused"
grep -q "started as one of 2 tasks" srun2.out || fail "srun -n 2 scripts/sweep: $(tail -n 3 srun2.out)"
grep -q Traceback srun1.out srun2.out && fail "a Python traceback from the sweep under srun"

# 6. klmini under srun without a process manager (--mpi=none) says which plugin to use and exits 3
# (a runtime error), not 1 (verification failed) as Open MPI's own abort would.
srun -n 2 --mpi=none "$klmini" --set tokens=8 --set vocab=16 > none.out 2>&1
rc=$?
if ldd "$klmini" | grep -q "libmpi\.so\.40"; then  # Open MPI's library
  if [[ $rc -ne 3 ]] || ! grep -q "without PMIx or PMI2" none.out; then
    fail "srun --mpi=none: exit $rc: $(tail -n 2 none.out)"
  fi
fi
[[ $rc -ne 1 ]] || fail "srun --mpi=none: exit 1, the code of a failed verification"

# Every job's record in the completion log agrees with scontrol.
[[ $(grep -c "JobState=COMPLETED" "$work/cluster/jobcomp.txt") -eq 4 ]] || fail "jobcomp: $(cat "$work/cluster/jobcomp.txt")"
[[ $(grep -c "JobState=FAILED" "$work/cluster/jobcomp.txt") -eq 3 ]] || fail "jobcomp: $(cat "$work/cluster/jobcomp.txt")"
echo "batch templates: 4 jobs and 2 srun sweeps as expected"
