#!/bin/bash
# Device call 2 (session 5): compute-sanitizer over the build of call 1 (scripts/gpu_sanitize.sh).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.device/lib:${LD_LIBRARY_PATH:-}
O=$OUT/s5c2; mkdir -p $O/sanitize
date
SANITIZE_TIMEOUT=120 bash scripts/gpu_sanitize.sh .device $O/sanitize > $O/sanitize/summary.txt 2>&1; echo "sanitize rc=$?"
cat $O/sanitize/summary.txt
date
tar -C $OUT -czf $OUT/s5c2.tar.gz s5c2
