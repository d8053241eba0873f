#!/bin/bash
# Device call 5 (session 4): the product with the exact log's table staged in team scratch
# (4 lane copies, 512 entries, degree 6), the scratch 16-byte aligned (call 4's test failure),
# m by one mad.wide: the Cuda tests; every seed deck in fp32, fast then exact per vocab; bf16
# exact; Google Benchmark's staged / global-table A/B; Nsight Compute on the product's exact
# kernel; clocks and power throughout; compute-sanitizer.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
O=$OUT/s4c5; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,clocks.max.sm,power.limit,driver_version --format=csv | tee $O/gpu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 100 > $O/clocks.csv 2>&1 &
SMI=$!
echo "== tests"; date
timeout 100 .device/bin/klmini_tests_cuda --reporter compact > $O/tests_cuda.log 2>&1; echo "tests rc=$?"
grep -iE "failed|error" $O/tests_cuda.log | head -10; tail -2 $O/tests_cuda.log
one() {  # label vocab overrides...
  local label=$1 v=$2; shift 2
  timeout 90 .device/bin/klmini inputs/seed-v$v.toml --set backend=cuda --set variant=fused "$@" \
    --csv $O/klmini.csv --json $O/$label-v$v.json > $O/$label-v$v.log 2>&1 || echo "FAILED $label $v"
  grep -E "^  (ceiling_|fused) |note:|^Verification" $O/$label-v$v.log | sed "s/^/[$label v$v] /"
}
echo "== seed"; date
for v in 4096 8192 16384 32768 65536 131072; do
  one fp32 $v --set verify=full
  one fp32-exact $v --set verify=full --set precision=exact
done
for v in 4096 131072; do one bf16-exact $v --set verify=full --set dtype=bf16 --set precision=exact; done
echo "== bench"; date
for shape in 16384x4096 16384x16384 16384x131072; do
  timeout 100 .device/bin/klmini_bench --benchmark_filter="^cuda/(fused|grid_u2_exact|grid_u2_exact_global)/$shape/" \
    --benchmark_min_time=0.1 --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_display_aggregates_only=true > $O/bench-$shape.log 2>&1
  grep -E "_median|_cv" $O/bench-$shape.log | awk '{print $1, $2, $3, $NF}' | sed 's/manual_time_//'
done
kill $SMI
echo "== ncu"; date
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 90 $NCU --clock-control none --kernel-name-base demangled -k regex:'GridStride<.*KlTermExactOp' -c 1 \
  --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
  --section Occupancy --section LaunchStats .device/bin/klmini inputs/seed-v16384.toml --set backend=cuda \
  --set verify=off --set warmup=1 --set repeats=1 --set precision=exact > $O/ncu-exact.txt 2>&1; echo "ncu rc=$?"
grep -E '^ +(SM Frequency|Duration|DRAM Throughput|L1/TEX Cache Throughput|Issue Slots Busy|Achieved Occupancy|Registers Per|Block Size|Grid Size)' $O/ncu-exact.txt
echo "== sanitize"; date
mkdir -p $O/sanitize
SANITIZE_TIMEOUT=120 bash scripts/gpu_sanitize.sh .device $O/sanitize > $O/sanitize/summary.txt 2>&1; echo "sanitize rc=$?"
cat $O/sanitize/summary.txt
date
tar -C $OUT -czf $OUT/s4c5.tar.gz s4c5
