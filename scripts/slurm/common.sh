# shellcheck shell=bash disable=SC2034,SC2154  # sets the templates' variables; they set root
# The part of the batch templates that is not about the hardware: their arguments, where the
# project and the results are, and the job's exit status. Sourced by cpu.sbatch and gpu.sbatch,
# with `root` set to the project. Every setting is an argument or its environment variable:
#   --klmini EXE     KLMINI          the executable
#   --deck FILE      KLMINI_DECK     base deck (default inputs/seed-v4096.toml)
#   --vocab LIST     KLMINI_VOCAB    comma-separated vocab sizes
#   --tokens LIST    KLMINI_TOKENS   comma-separated token counts (default 16384)
#   --ranks LIST     KLMINI_RANKS    MPI rank counts (gpu.sbatch; default 1, 2, 4, ... GPUs)
#   --backend NAME   KLMINI_BACKEND  (gpu.sbatch; default cuda)
#   --set KEY=VALUE  KLMINI_SET      deck overrides (the variable: space-separated)
#   --out DIR        KLMINI_OUT      results folder; a job given the folder of an earlier one
#                                    resumes its sweeps (default results/<cluster>/<kind>, under
#                                    the folder the job was submitted from)

klmini_usage() {
  sed -n "3,/^$/p" "$root/scripts/slurm/common.sh" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# klmini_args KIND "$@": sets klmini, deck, vocab, tokens, ranks, backend, out and sets (array).
klmini_args() {
  local kind=$1
  shift
  klmini=${KLMINI:-}
  deck=${KLMINI_DECK:-$root/inputs/seed-v4096.toml}
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
  [[ "$deck" == /* ]] || deck="$submit/$deck"
  [[ -z "$klmini" || "$klmini" == /* ]] || klmini="$submit/$klmini"
  set_args=()
  local kv
  for kv in "${sets[@]}"; do set_args+=(--set "$kv"); done
}

# Runs the plots over the CSVs that exist; a job whose sweeps or plots failed exits 1, so Slurm
# records it as FAILED and `afterok` dependencies do not start.
klmini_finish() {
  local status=$1 plots=$2
  shift 2
  local csvs=() csv
  for csv in "$@"; do [[ -s "$csv" ]] && csvs+=("$csv"); done
  if ((${#csvs[@]})); then
    "$root/scripts/plot" "${csvs[@]}" --out "$plots" || status=1
  else
    echo "no results to plot"
    status=1
  fi
  ((status == 0)) || echo "some points failed: see $out/**/points.csv and their logs"
  echo "results in $out"
  exit "$status"
}
