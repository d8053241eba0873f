#!/bin/bash
# Device call 1 (session 5): the build of main after the sampled-verification and memory-estimate
# changes: the Cuda tests; every seed deck in fp32, fast then exact per vocab (issue 9's ratio on
# this build); a sampled-verification run; clocks and power throughout.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
O=$OUT/s5c1; mkdir -p $O
git log -1 --format='%H %s' > $O/commit.txt 2>/dev/null || true
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,clocks.max.sm,power.limit,driver_version --format=csv | tee $O/gpu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 100 > $O/clocks.csv 2>&1 &
SMI=$!
echo "== tests"; date
timeout 150 .device/bin/klmini_tests_cuda --reporter compact > $O/tests_cuda.log 2>&1; echo "tests rc=$?"
grep -iE "failed|error|seeded" $O/tests_cuda.log | head -10; tail -2 $O/tests_cuda.log
one() {  # label vocab overrides...
  local label=$1 v=$2; shift 2
  timeout 90 .device/bin/klmini inputs/seed-v$v.toml --set backend=cuda --set variant=fused "$@" \
    --csv $O/klmini.csv --json $O/$label-v$v.json > $O/$label-v$v.log 2>&1; echo "[$label v$v] rc=$?"
  grep -E "^  (ceiling_|fused) |note:|^Verification" $O/$label-v$v.log | sed "s/^/[$label v$v] /"
}
echo "== seed"; date
for v in 4096 8192 16384 32768 65536 131072; do
  one fp32 $v --set verify=full
  one fp32-exact $v --set verify=full --set precision=exact
done
echo "== sampled"; date
one fp32-sample 131072 --set verify=sample
grep -iE "sampled|standard errors" $O/fp32-sample-v131072.log | head -5
echo "== default deck"; date
timeout 60 .device/bin/klmini --set backend=cuda > $O/default.log 2>&1; echo "default rc=$?"; tail -25 $O/default.log
kill $SMI
date
tar -C $OUT -czf $OUT/s5c1.tar.gz s5c1
