#!/bin/bash
# Device call 1 (session 3): exact-kernel candidates (Google Benchmark), the seed decks with the
# flushed timer (fp32, bf16, gradient, exact), then the Cuda test suite.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
O=$OUT/c1; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,driver_version --format=csv | tee $O/gpu.txt
echo "== bench"; date
timeout 150 .device/bin/klmini_bench --benchmark_filter='^cuda/(ceiling_read|fused|grid_u[124]_exact[a-z0-9_]*|gridread_u4_l528)/' \
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
echo "== tests"; date
timeout 200 .device/bin/klmini_tests_cuda --reporter compact > $O/tests_cuda.log 2>&1; echo "tests rc=$?"
grep -iE "failed|error" $O/tests_cuda.log | head -20; tail -2 $O/tests_cuda.log
date
tar -C $OUT -czf $OUT/c1.tar.gz c1
