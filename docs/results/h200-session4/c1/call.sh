#!/bin/bash
# Device call 1 (session 4): the exact kernel's candidates (bench x_*), Nsight Compute on the
# product's fast and exact kernels, and clocks/power during long fast and exact runs.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
O=$OUT/s4c1; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,clocks.max.sm,power.limit,driver_version --format=csv | tee $O/gpu.txt
echo "== bench"; date
timeout 240 .device/bin/klmini_bench --benchmark_filter='^cuda/(ceiling_read|fused|grid_u2_exact|x_[a-z0-9_]*)/' \
  --benchmark_min_time=0.1 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_display_aggregates_only=true > $O/bench.log 2>&1; echo "bench rc=$?"
grep -E "_median" $O/bench.log | awk '{print $1, $2, $3, $NF}'
echo "== clocks"; date
for prec in fast exact; do
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 20 > $O/clocks-$prec.csv 2>&1 &
  SMI=$!
  timeout 60 .device/bin/klmini inputs/seed-v131072.toml --set backend=cuda --set verify=sample --set repeats=60 \
    --set precision=$prec > $O/long-$prec.log 2>&1 || echo "FAILED long $prec"
  kill $SMI; wait $SMI 2>/dev/null
  grep -E "^  (ceiling_|fused) |^Verification" $O/long-$prec.log | sed "s/^/[$prec] /"
  awk -F', ' 'NR>1 && $4+0>300 {n++; s+=$2; p+=$4; if(min==""||$2<min)min=$2} END {print "busy samples",n,"mean sm MHz",s/n,"min",min,"mean W",p/n}' $O/clocks-$prec.csv
  awk -F', ' 'NR>1 && $4+0>300 {print $6}' $O/clocks-$prec.csv | sort | uniq -c | head -5
done
echo "== ncu"; date
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for prec in fast exact; do
  k=$([ $prec = exact ] && echo KlTermExactOp || echo KlTermOp)
  timeout 150 $NCU --clock-control none --kernel-name-base demangled -k regex:"GridStride.*$k" --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats \
    .device/bin/klmini inputs/seed-v16384.toml --set backend=cuda --set verify=off --set warmup=1 --set repeats=1 \
    --set precision=$prec > $O/ncu-$prec.txt 2>&1; echo "ncu $prec rc=$?"
  grep -E "Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|Issue Slots|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|No Eligible|L1/TEX Hit|Executed Ipc A" $O/ncu-$prec.txt | head -20
done
date
tar -C $OUT -czf $OUT/s4c1.tar.gz s4c1
