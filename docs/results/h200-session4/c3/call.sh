#!/bin/bash
# Device call 3 (session 4): lane-copied scratch tables with full-Horner logs (x_l*f*) against the
# product's kernel (x_base), interleaved, 5 repetitions per shape; Nsight Compute SOL/L1 figures.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
O=$OUT/s4c3; mkdir -p $O
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
for v in base l8d6_t1024 l8d7f_t1024 l9d6f_c4_t1024 fast; do
  timeout 60 $NCU --clock-control none --kernel-name-base demangled -k regex:GridStrideX -c 1 --section SpeedOfLight --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section Occupancy \
    .device/bin/klmini_bench --benchmark_filter="^cuda/x_$v/16384x16384/" --benchmark_min_time=0.01 > $O/ncu-$v.txt 2>&1
  echo "[ncu $v] rc=$? $(grep -E '^ +(SM Frequency|Duration|DRAM Throughput|L1/TEX Cache Throughput|Issue Slots Busy|Achieved Occupancy|Warp Cycles Per Issued)' $O/ncu-$v.txt | awk '{print $NF}' | tr '\n' ' ')"
done
echo "[ncu cols] SMfreq Duration DRAM% L1% Issue% WarpCyc/Issue AchOcc"
tar -C $OUT -czf $OUT/s4c3.tar.gz s4c3
