#!/bin/bash
# Device call 2 (session 4): the exact kernel's table in team scratch, 8 lane copies (x_l*),
# against the product's kernel (x_base) and others; random interleaving, 5 repetitions, one
# bench run per shape; then Nsight Compute's L1 and SOL figures for the main candidates.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
O=$OUT/s4c2; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,driver_version --format=csv | tee $O/gpu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active --format=csv -lms 100 > $O/clocks.csv 2>&1 &
SMI=$!
for shape in 16384x4096 16384x16384 16384x131072; do
  timeout 120 .device/bin/klmini_bench --benchmark_filter="^cuda/(ceiling_read|x_[a-z0-9_]*)/$shape/" \
    --benchmark_min_time=0.1 --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true --benchmark_display_aggregates_only=true > $O/bench-$shape.log 2>&1
  echo "bench $shape rc=$?"
  grep -E "_median|_cv" $O/bench-$shape.log | awk '{print $1, $2, $3, $NF}' | sed 's/manual_time_//'
done
kill $SMI
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for v in base g8d6 l8d6_lb4 l8d6_t1024 l7d7 fast; do
  timeout 60 $NCU --clock-control none -k regex:GridStrideX -c 1 --section SpeedOfLight --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section Occupancy \
    .device/bin/klmini_bench --benchmark_filter="^cuda/x_$v/16384x16384/" --benchmark_min_time=0.01 > $O/ncu-$v.txt 2>&1
  echo "[ncu $v] rc=$? $(grep -E '^ +(SM Frequency|Duration|DRAM Throughput|L1/TEX Cache Throughput|Issue Slots Busy|Achieved Occupancy|Warp Cycles Per Issued)' $O/ncu-$v.txt | awk '{print $NF}' | tr '\n' ' ')"
done
echo "[ncu cols] SMfreq Duration DRAM% L1% Issue% WarpCyc/Issue AchOcc"
tar -C $OUT -czf $OUT/s4c2.tar.gz s4c2
