#!/usr/bin/env bash
# gpu.sbatch's arithmetic (scripts/slurm/common.sh), given the variables Slurm sets for each way a
# job asks for GPUs and tasks: klmini_gpu_layout's GPUs and tasks on the node, and the rank counts
# klmini_doubling_up_to makes of them. No Slurm needed.
#   tests/slurm/gpu_layout_test.sh PROJECT_ROOT
set -uo pipefail
project=${1:?usage: gpu_layout_test.sh PROJECT_ROOT}
# shellcheck source=scripts/slurm/common.sh
source "$project/scripts/slurm/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect "GPUS TASKS" VAR=VALUE...: klmini_gpu_layout in an environment of only those variables
# (and PATH, whose nvidia-smi is a fake one in $work/bin when the case makes it).
expect() {
  local want=$1 got
  shift
  got=$(env -i PATH="$work/bin:/usr/bin:/bin" "$@" bash -c "source '$project/scripts/slurm/common.sh'; klmini_gpu_layout")
  if [[ "$got" == "$want" ]]; then
    echo "ok: ${*:-no variables} -> $got"
  else
    echo "FAILED: ${*:-no variables}: '$got', expected '$want'"
    failures=$((failures + 1))
  fi
}

mkdir -p "$work/bin"
# --gpus-per-node=4 --ntasks-per-node=4 (the template's own lines)
expect "4 4" SLURM_JOB_ID=1 SLURM_GPUS_ON_NODE=4 SLURM_GPUS_PER_NODE=4 SLURM_NTASKS_PER_NODE=4 SLURM_TASKS_PER_NODE=4
# --gpus-per-node=h100:8 with --ntasks-per-node=8, as a site writes a typed request
expect "8 8" SLURM_JOB_ID=1 SLURM_GPUS_PER_NODE=h100:8 SLURM_NTASKS_PER_NODE=8
# --ntasks=4 --gpus-per-task=1: only the per-task count and the tasks per node
expect "4 4" SLURM_JOB_ID=1 SLURM_GPUS_PER_TASK=1 SLURM_TASKS_PER_NODE=4
# --gpus-per-task=2 --ntasks=2 on each of 3 nodes ("2(x3)")
expect "4 2" SLURM_JOB_ID=1 SLURM_GPUS_PER_TASK=2 SLURM_TASKS_PER_NODE="2(x3)"
# --gpus-per-node=4 --ntasks-per-gpu=2: 8 ranks, 2 per GPU
expect "4 8" SLURM_JOB_ID=1 SLURM_GPUS_ON_NODE=4 SLURM_NTASKS_PER_GPU=2
expect "4 8" SLURM_JOB_ID=1 SLURM_GPUS_ON_NODE=4 SLURM_NTASKS_PER_GPU=2 SLURM_TASKS_PER_NODE=8
# --gpus-per-node=4 and no task count: one task a GPU
expect "4 4" SLURM_JOB_ID=1 SLURM_GPUS_ON_NODE=4
# --gpus-per-node=0 --ntasks-per-node=2: the CPU test of batch_templates
expect "0 2" SLURM_JOB_ID=1 SLURM_NTASKS_PER_NODE=2 SLURM_TASKS_PER_NODE=2
# A job without GPUs or task counts: one task; nvidia-smi is not asked inside a job
printf '#!/bin/sh\necho "GPU 0: H100"; echo "GPU 1: H100"; echo "GPU 2: H100"\n' > "$work/bin/nvidia-smi"
chmod +x "$work/bin/nvidia-smi"
expect "0 1" SLURM_JOB_ID=1
# Outside a job: the GPUs nvidia-smi lists, a task each
expect "3 3"
rm "$work/bin/nvidia-smi"
expect "0 1"

for case in "1 1" "2 1,2" "4 1,2,4" "6 1,2,4,6" "8 1,2,4,8" "12 1,2,4,8,12"; do
  read -r top want <<<"$case"
  got=$(klmini_doubling_up_to "$top")
  [[ "$got" == "$want" ]] || { echo "FAILED: klmini_doubling_up_to $top: '$got', expected '$want'"; failures=$((failures + 1)); }
done
((failures == 0)) || { echo "$failures case(s) failed"; exit 1; }
echo "gpu layout: every case as expected"
