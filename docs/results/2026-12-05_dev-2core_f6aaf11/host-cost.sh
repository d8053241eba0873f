#!/bin/bash
# The fused loss with fp64 sums (OLD) against fixed-point sums (NEW), alternating, 3 rounds.
#   host-cost.sh OLD_KLMINI NEW_KLMINI
old=$1 new=$2
export OMP_NUM_THREADS=2 OMP_PROC_BIND=spread OMP_PLACES=cores
for cfg in "4096 fast" "1001 fast" "4096 exact"; do
  set -- $cfg
  for k in 1 2 3; do
    for which in old new; do
      B=$([ $which = old ] && echo "$old" || echo "$new")
      $B --set backend=openmp --set tokens=16384 --set vocab=$1 --set precision=$2 --set variant=fused \
        --set verify=sample --set warmup=2 --set repeats=10 > /tmp/hc.log 2>&1 || echo FAIL
      echo "$1 $2 $which $k $(grep -E '^  fused ' /tmp/hc.log | sed 's/   */ /g' | cut -c1-70) $(grep -E '^loss:' /tmp/hc.log)"
    done
  done
done
