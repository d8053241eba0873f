#!/bin/bash
# Device call 3 (session 3): the Cuda tests, the timing method A/B (Google Benchmark), every
# seed deck in fp32, bf16, exact and with the gradient, then the PyTorch peers.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
O=$OUT/c3; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,driver_version --format=csv | tee $O/gpu.txt
echo "== tests"; date
timeout 200 .device/bin/klmini_tests_cuda --reporter compact > $O/tests_cuda.log 2>&1; echo "tests rc=$?"
grep -iE "failed|error" $O/tests_cuda.log | head -10; tail -2 $O/tests_cuda.log
echo "== bench"; date
timeout 220 .device/bin/klmini_bench --benchmark_filter='^cuda/(timing_[a-z_]*|grid_u[24]_exact)/' \
  --benchmark_min_time=0.1 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_display_aggregates_only=true > $O/bench.log 2>&1
grep -E "_median" $O/bench.log | awk '{print $1, $2, $3}'
run() {  # label, overrides...
  local label=$1; shift
  for v in 4096 8192 16384 32768 65536 131072; do
    timeout 120 .device/bin/klmini inputs/seed-v$v.toml --set backend=cuda --set verify=full --set variant=fused "$@" \
      --csv $O/klmini.csv --json $O/$label-v$v.json > $O/$label-v$v.log 2>&1 || echo "FAILED $label $v"
    grep -E "^  (ceiling_|fused|grad_only)|^  fused_grad /|note:|^Verification" $O/$label-v$v.log | sed "s/^/[$label v$v] /"
  done
}
echo "== seed"; date
run fp32
run bf16 --set dtype=bf16
run fp32-exact --set precision=exact
run fp32-grad --set gradient=true
if python3 -c "import torch" 2>/dev/null; then
  echo "== peers"; date
  PYTHONUNBUFFERED=1 timeout 120 python3 scripts/peers.py --vocab 4096,8192,16384,32768,65536,131072 --out $O/peers.csv > $O/peers.log 2>&1
  grep vocab $O/peers.log | sed "s/^/[peers] /"
  PYTHONUNBUFFERED=1 timeout 100 python3 scripts/peers.py --dtype bf16 --vocab 4096,8192,16384,32768,65536,131072 --out $O/peers-bf16.csv > $O/peers-bf16.log 2>&1
  grep vocab $O/peers-bf16.log | sed "s/^/[peers-bf16] /"
fi
date
tar -C $OUT -czf $OUT/c3.tar.gz c3
