#!/usr/bin/env bash
# The OpenMP thread-scaling study on one host: klmini's fused kernel and its read ceiling at
# 1, 2, 4, ... threads (OMP_PROC_BIND=spread, OMP_PLACES=threads), one CSV row per run, plus
# PyTorch's CPU kl_div on all threads where PyTorch is installed.
#   scripts/host_scaling.sh KLMINI OUTDIR [THREADS] [--set key=value ...]
#   e.g. scripts/host_scaling.sh build/host/bin/klmini results/host 1,2,4,8,16 --set tokens=16384
set -uo pipefail
exe=${1:?usage: host_scaling.sh KLMINI OUTDIR [THREADS] [--set ...]}
out=${2:?usage: host_scaling.sh KLMINI OUTDIR [THREADS] [--set ...]}
threads=${3:-1,2,4,8,16}
shift $(( $# >= 3 ? 3 : $# ))
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
status=0
export OMP_PROC_BIND=spread OMP_PLACES=threads
for n in ${threads//,/ }; do
  OMP_NUM_THREADS=$n "$exe" "$root/inputs/seed-v4096.toml" --set backend=openmp --set variant=fused \
    --set repeats=10 "$@" --csv "$out/openmp_scaling.csv" > "$out/openmp-t$n.log" 2>&1 || status=1
  grep -E "^  (ceiling_read|fused)|^Verification" "$out/openmp-t$n.log" | sed "s/^/[threads $n] /"
done
max=${threads##*,}
if python3 -c "import torch" 2>/dev/null; then
  tokens=$(grep -m1 -oE "tokens x vocab +[0-9]+" "$out/openmp-t$max.log" | grep -oE "[0-9]+$")
  python3 "$root/scripts/peers.py" --cpu-threads "$max" --tokens "${tokens:-16384}" --vocab 4096 \
    --out "$out/pytorch_cpu.csv" || status=1
fi
exit $status
