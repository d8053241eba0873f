# shellcheck shell=bash disable=SC2034  # sets the templates' variables
# The part of the batch templates that is not about the hardware: their arguments, where the
# tools and the results are, and the job's exit status. Sourced by cpu.sbatch and gpu.sbatch.
# Every setting is an argument or its environment variable:
#   --klmini EXE     KLMINI          the executable (default: a checkout's build/host or
#                                    build/cuda; installed, PREFIX/bin/klmini, else PATH's)
#   --deck FILE      KLMINI_DECK     base deck (default seed-v4096.toml of inputs/, installed
#                                    PREFIX/share/klmini/inputs, else KLMINI_INPUTS)
#   --vocab LIST     KLMINI_VOCAB    comma-separated vocab sizes
#   --tokens LIST    KLMINI_TOKENS   comma-separated token counts (default 16384)
#   --ranks LIST     KLMINI_RANKS    MPI rank counts (gpu.sbatch; default 1, 2, 4, ... GPUs)
#   --backend NAME   KLMINI_BACKEND  (gpu.sbatch; default cuda)
#   --set KEY=VALUE  KLMINI_SET      deck overrides (the variable: space-separated)
#   --out DIR        KLMINI_OUT      results folder; a job given the folder of an earlier one
#                                    resumes its sweeps (default results/<cluster>/<kind>, under
#                                    the folder the job was submitted from)

# This file, and where the tools are. In a checkout (this file in its scripts/slurm): root is
# the project, the sweep and the plots are scripts/sweep and scripts/plot. Installed (this file
# in PREFIX/share/klmini/slurm, found beside the template or through the klmini module's
# KLMINI_SLURM): root is empty, the tools are PREFIX/bin's klmini-sweep and klmini-plot, else
# those on PATH (the module puts PREFIX/bin there).
klmini_common=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/common.sh
klmini_slurm_dir=${klmini_common%/common.sh}
if [[ -x "$klmini_slurm_dir/../sweep" && -f "$klmini_slurm_dir/../../CMakeLists.txt" ]]; then
  root=$(cd "$klmini_slurm_dir/../.." && pwd)
  klmini_prefix=""
  sweep=$root/scripts/sweep
  plot=$root/scripts/plot
  inputs=$root/inputs
else
  root=""
  klmini_prefix=$(cd "$klmini_slurm_dir/../../.." && pwd)
  sweep=$klmini_prefix/bin/klmini-sweep
  [[ -x "$sweep" ]] || sweep=$(command -v klmini-sweep || true)
  plot=$klmini_prefix/bin/klmini-plot
  [[ -x "$plot" ]] || plot=$(command -v klmini-plot || true)
  inputs=$klmini_prefix/share/klmini/inputs
  [[ -d "$inputs" ]] || inputs=${KLMINI_INPUTS:-}
fi

# The klmini a template runs when given none: a checkout's build/PRESET/bin/klmini, an install's
# PREFIX/bin/klmini, else the one on PATH; empty when there is none.
klmini_default() {
  local preset=$1
  if [[ -n "$root" ]]; then
    echo "$root/build/$preset/bin/klmini"
  elif [[ -x "$klmini_prefix/bin/klmini" ]]; then
    echo "$klmini_prefix/bin/klmini"
  else
    command -v klmini || true
  fi
}

klmini_usage() {
  sed -n "4,/^$/p" "$klmini_common" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# klmini_args KIND PRESET "$@": sets klmini (default: klmini_default PRESET), deck, vocab, tokens,
# ranks, backend, out and sets (array); exits 2 when the sweep, the plots or klmini are missing.
klmini_args() {
  local kind=$1 preset=$2
  shift 2
  klmini=${KLMINI:-}
  deck=${KLMINI_DECK:-}
  vocab=${KLMINI_VOCAB:-}
  tokens=${KLMINI_TOKENS:-16384}
  ranks=${KLMINI_RANKS:-}
  backend=${KLMINI_BACKEND:-}
  out=${KLMINI_OUT:-}
  read -r -a sets <<<"${KLMINI_SET:-}"
  while (($#)); do
    case "$1" in
      --klmini) klmini=${2:?--klmini needs a value}; shift 2 ;;
      --deck) deck=${2:?--deck needs a value}; shift 2 ;;
      --vocab) vocab=${2:?--vocab needs a value}; shift 2 ;;
      --tokens) tokens=${2:?--tokens needs a value}; shift 2 ;;
      --ranks) ranks=${2:?--ranks needs a value}; shift 2 ;;
      --backend) backend=${2:?--backend needs a value}; shift 2 ;;
      --set) sets+=("${2:?--set needs a value}"); shift 2 ;;
      --out) out=${2:?--out needs a value}; shift 2 ;;
      -h|--help) klmini_usage ;;
      *) echo "$kind.sbatch: unknown argument '$1'" >&2; klmini_usage ;;
    esac
  done
  local submit=${SLURM_SUBMIT_DIR:-$PWD}
  out=${out:-$submit/results/${SLURM_CLUSTER_NAME:-$(hostname -s)}/$kind}
  [[ "$out" == /* ]] || out="$submit/$out"
  if [[ -z "$deck" ]]; then
    [[ -n "$inputs" ]] || { echo "$kind.sbatch: no decks' folder (KLMINI_INPUTS): pass --deck" >&2; exit 2; }
    deck=$inputs/seed-v4096.toml
  fi
  [[ "$deck" == /* ]] || deck="$submit/$deck"
  [[ -z "$klmini" || "$klmini" == /* ]] || klmini="$submit/$klmini"
  [[ -n "$klmini" ]] || klmini=$(klmini_default "$preset")
  local where="beside $klmini_common"
  [[ -n "$root" ]] || where="in $klmini_prefix/bin or on PATH (module load klmini)"
  [[ -n "$sweep" && -n "$plot" ]] || { echo "$kind.sbatch: no klmini-sweep or klmini-plot $where" >&2; exit 2; }
  [[ -n "$klmini" ]] || { echo "$kind.sbatch: no klmini $where: pass --klmini or set KLMINI" >&2; exit 2; }
  set_args=()
  local kv
  for kv in "${sets[@]}"; do set_args+=(--set "$kv"); done
}

# klmini_doubling_up_to N: "1,2,4,...", the powers of two up to N, then N when it is not one.
klmini_doubling_up_to() {
  local top=$1 list=1 n=2
  while ((n <= top)); do list="$list,$n"; n=$((n * 2)); done
  ((top > 1 && (top & (top - 1)))) && list="$list,$top"
  echo "$list"
}

# klmini_gpu_layout: "GPUS TASKS", this node's GPUs and tasks in the job's allocation, from what
# Slurm sets for the way the job asked for them (--gpus-per-node, --gpus-per-task,
# --ntasks-per-gpu, --ntasks-per-node, --ntasks):
#   tasks  SLURM_NTASKS_PER_NODE, else the first count of SLURM_TASKS_PER_NODE ("4(x2)": 4),
#          else SLURM_NTASKS_PER_GPU x GPUs, else GPUs / SLURM_GPUS_PER_TASK, else 1 per GPU
#   GPUs   SLURM_GPUS_ON_NODE, else SLURM_GPUS_PER_NODE ("h100:4": 4), else SLURM_GPUS_PER_TASK x
#          tasks; outside a job the GPUs nvidia-smi lists; else 0
# At least one task. Each rank then uses the GPU numbered by its local rank modulo the GPUs it
# sees (Kokkos' --kokkos-map-device-id-by=mpi_rank): one GPU per rank, and with
# --ntasks-per-gpu=K, K ranks per GPU.
klmini_gpu_layout() {
  local gpus="" tasks=""
  tasks=${SLURM_NTASKS_PER_NODE:-}
  [[ -n "$tasks" || -z "${SLURM_TASKS_PER_NODE:-}" ]] || tasks=${SLURM_TASKS_PER_NODE%%[(,]*}
  if [[ -n "${SLURM_GPUS_ON_NODE:-}" ]]; then
    gpus=$SLURM_GPUS_ON_NODE
  elif [[ -n "${SLURM_GPUS_PER_NODE:-}" ]]; then
    gpus=${SLURM_GPUS_PER_NODE##*:}
  elif [[ -n "${SLURM_GPUS_PER_TASK:-}" && -n "$tasks" ]]; then
    gpus=$((${SLURM_GPUS_PER_TASK##*:} * tasks))
  elif [[ -z "${SLURM_JOB_ID:-}" ]]; then
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  fi
  [[ "$gpus" =~ ^[0-9]+$ ]] || gpus=0
  if [[ -z "$tasks" ]]; then
    if [[ -n "${SLURM_NTASKS_PER_GPU:-}" ]]; then
      tasks=$((SLURM_NTASKS_PER_GPU * gpus))
    elif [[ -n "${SLURM_GPUS_PER_TASK:-}" ]] && ((${SLURM_GPUS_PER_TASK##*:} > 0)); then
      tasks=$((gpus / ${SLURM_GPUS_PER_TASK##*:}))
    else
      tasks=$gpus
    fi
  fi
  [[ "$tasks" =~ ^[0-9]+$ ]] && ((tasks >= 1)) || tasks=1
  echo "$gpus $tasks"
}

# Runs the plots over the CSVs that exist; a job whose sweeps or plots failed exits 1, so Slurm
# records it as FAILED and `afterok` dependencies do not start.
klmini_finish() {
  local status=$1 plots=$2
  shift 2
  local csvs=() csv
  for csv in "$@"; do [[ -s "$csv" ]] && csvs+=("$csv"); done
  if ((${#csvs[@]})); then
    "$plot" "${csvs[@]}" --out "$plots" || status=1
  else
    echo "no results to plot"
    status=1
  fi
  ((status == 0)) || echo "some points failed: see $out/**/points.csv and their logs"
  echo "results in $out"
  exit "$status"
}
