#!/bin/bash
# Device call 2 (session 3): the timing method A/B and the exact-log candidates (Google
# Benchmark), fp32 fast against exact on every seed deck, the Cuda tests, the 16-core host.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
O=$OUT/c2; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,driver_version --format=csv | tee $O/gpu.txt
echo "== tests"; date
timeout 200 .device/bin/klmini_tests_cuda --reporter compact > $O/tests_cuda.log 2>&1; echo "tests rc=$?"
grep -iE "failed|error" $O/tests_cuda.log | head -10; tail -2 $O/tests_cuda.log
echo "== bench"; date
timeout 220 .device/bin/klmini_bench --benchmark_filter='^cuda/(ceiling_read|fused|timing_[a-z_]*|grid_u[124]_exact[a-z0-9_]*)/' \
  --benchmark_min_time=0.1 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_display_aggregates_only=true > $O/bench.log 2>&1
grep -E "_median" $O/bench.log | awk '{print $1, $2, $3}'
run() {  # label, overrides...
  local label=$1; shift
  for v in 4096 8192 16384 32768 65536 131072; do
    timeout 120 .device/bin/klmini inputs/seed-v$v.toml --set backend=cuda --set verify=full --set variant=fused "$@" \
      --csv $O/klmini.csv --json $O/$label-v$v.json > $O/$label-v$v.log 2>&1 || echo "FAILED $label $v"
    grep -E "^  (ceiling_|fused) |note:|^Verification" $O/$label-v$v.log | sed "s/^/[$label v$v] /"
  done
}
echo "== seed"; date
run fp32
run fp32-exact --set precision=exact
if [[ -x .device/host-v4/klmini ]]; then
  echo "== host"; date
  for p in fast exact; do
    OMP_PROC_BIND=spread OMP_PLACES=threads timeout 100 .device/host-v4/klmini inputs/seed-v4096.toml --set backend=openmp \
      --set variant=fused --set verify=full --set precision=$p > $O/host16-$p.log 2>&1 || echo "FAILED host $p"
    grep -E "^  (ceiling_|fused) |^Verification" $O/host16-$p.log | sed "s/^/[host $p] /"
  done
fi
date
tar -C $OUT -czf $OUT/c2.tar.gz c2
