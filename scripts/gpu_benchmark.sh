#!/usr/bin/env bash
# One GPU session in one command: the Cuda test suite, klmini on every seed deck (all
# variants, each run with its own read ceiling), Google Benchmark's unroll sweep, and the
# PyTorch peers on the same sizes. Everything lands in OUTDIR (CSV, JSON, logs).
# Every deck is verified in full against the fp64 host reference (every element).
#   scripts/gpu_benchmark.sh BUILD_DIR OUTDIR [VOCABS]
set -uo pipefail
build=${1:?usage: gpu_benchmark.sh BUILD_DIR OUTDIR [VOCABS]}
out=${2:?usage: gpu_benchmark.sh BUILD_DIR OUTDIR [VOCABS]}
vocabs=${3:-4096,8192,16384,32768,65536,131072}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
status=0
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,driver_version --format=csv | tee "$out/gpu.txt"

echo "== tests on the Cuda backend"
if ! "$build/bin/klmini_tests_cuda" --reporter compact > "$out/tests_cuda.log" 2>&1; then status=1; fi
grep -iE "failed|error" "$out/tests_cuda.log" | head -20
tail -2 "$out/tests_cuda.log"

echo "== klmini, seed decks"
for v in ${vocabs//,/ }; do
  "$build/bin/klmini" "$root/inputs/seed-v$v.toml" --set backend=cuda --set variant=all --set verify=full \
    --csv "$out/klmini.csv" --json "$out/klmini-v$v.json" > "$out/klmini-v$v.log" 2>&1 || status=1
  grep -E "^  (ceiling_read|fused|flat|kokkos)|^loss|^Verification" "$out/klmini-v$v.log" | sed "s/^/[v$v] /"
done

if [[ -x "$build/bin/klmini_bench" ]]; then
  echo "== Google Benchmark (cuda)"
  "$build/bin/klmini_bench" --benchmark_filter="${BENCH_FILTER:-^cuda/}" --benchmark_min_time=0.1 --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_display_aggregates_only=true \
    --benchmark_out="$out/bench.json" --benchmark_out_format=json > "$out/bench.log" 2>&1 || status=1
  grep -E "^cuda/.*_median" "$out/bench.log" | awk '{print $1, $2, $3, $(NF)}'
fi

if python3 -c "import torch" 2>/dev/null; then
  echo "== peers (PyTorch eager, torch.compile, read and copy references)"
  PYTHONUNBUFFERED=1 python3 "$root/scripts/peers.py" --vocab "$vocabs" --out "$out/peers.csv" > "$out/peers.log" 2>&1 || status=1
  grep -E "vocab" "$out/peers.log"
fi
tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")"  # one file carries everything back
exit $status
