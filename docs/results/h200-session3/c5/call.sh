#!/bin/bash
# Device call 5 (session 3): the exact log with the index and m read from the masked offset
# (fewer integer operations): the Cuda tests, then fp32 fast and exact on every seed deck.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
O=$OUT/c5; mkdir -p $O
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,driver_version --format=csv | tee $O/gpu.txt
timeout 100 .device/bin/klmini_tests_cuda --reporter compact > $O/tests_cuda.log 2>&1; echo "tests rc=$?"; tail -2 $O/tests_cuda.log
run() {  # label, overrides...
  local label=$1; shift
  for v in 4096 8192 16384 32768 65536 131072; do
    timeout 60 .device/bin/klmini inputs/seed-v$v.toml --set backend=cuda --set verify=full --set variant=fused "$@" \
      --csv $O/klmini.csv --json $O/$label-v$v.json > $O/$label-v$v.log 2>&1 || echo "FAILED $label $v"
    grep -E "^  (ceiling_|fused) |note:|^Verification" $O/$label-v$v.log | sed "s/^/[$label v$v] /"
  done
}
run fp32
run fp32-exact --set precision=exact
tar -C $OUT -czf $OUT/c5.tar.gz c5
