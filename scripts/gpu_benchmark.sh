#!/usr/bin/env bash
# One GPU run in one command: the Cuda test suite, klmini on every seed deck (all
# variants, each run with its own read ceiling), then on the same decks with precision =
# "exact", with bf16 and fp16 inputs, and with the gradient (fused_grad against fused +
# grad_only and the copy ceiling), Google Benchmark's shape sweep, and the PyTorch peers on the
# same sizes. Everything lands in OUTDIR (CSV, JSON, logs). Every deck is verified in full
# against the fp64 host reference (every element).
#   [SECTIONS=tests,seed,exact,dtype,gradient,bench,peers,peers-bf16,peers-grad,ncu] \
#     scripts/gpu_benchmark.sh BUILD_DIR OUTDIR [VOCABS]
# BENCH_FILTER selects Google Benchmark's cases (default: every Cuda case). LIGER_SRC: the src
# folder of a Liger-Kernel checkout, for the peers' Liger rows. The ncu section times klmini's
# kernels and the peers' under Nsight Compute (--clock-control none: the clocks as found;
# caches flushed between kernels) at NCU_VOCABS (default 4096,131072), median of 5 launches.
set -uo pipefail
build=${1:?usage: gpu_benchmark.sh BUILD_DIR OUTDIR [VOCABS]}
out=${2:?usage: gpu_benchmark.sh BUILD_DIR OUTDIR [VOCABS]}
vocabs=${3:-4096,8192,16384,32768,65536,131072}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
sections=",${SECTIONS:-tests,seed,exact,dtype,gradient,bench,peers,peers-bf16,peers-grad,ncu},"
liger=()
[[ -n "${LIGER_SRC:-}" ]] && liger=(--liger-src "$LIGER_SRC")
want() { [[ $sections == *",$1,"* ]]; }
status=0
nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem,driver_version --format=csv | tee "$out/gpu.txt"

if want tests; then
  echo "== tests on the Cuda backend"
  if ! "$build/bin/klmini_tests_cuda" --reporter compact > "$out/tests_cuda.log" 2>&1; then status=1; fi
  grep -iE "failed|error" "$out/tests_cuda.log" | head -20
  tail -2 "$out/tests_cuda.log"
fi

# klmini on every seed deck with the given label and overrides; one CSV for everything.
seed_decks() {
  local label=$1
  shift
  echo "== klmini, seed decks: $label"
  for v in ${vocabs//,/ }; do
    "$build/bin/klmini" "$root/inputs/seed-v$v.toml" --set backend=cuda --set verify=full "$@" \
      --csv "$out/klmini.csv" --json "$out/klmini-$label-v$v.json" > "$out/klmini-$label-v$v.log" 2>&1 || status=1
    grep -E "^  (ceiling_|fused|flat|kokkos|grad_only)|^  fused_grad /|^Verification" "$out/klmini-$label-v$v.log" |
      sed "s/^/[$label v$v] /"
  done
}
want seed && seed_decks fp32 --set variant=all
want exact && seed_decks fp32-exact --set precision=exact --set variant=all
if want dtype; then
  seed_decks bf16 --set dtype=bf16 --set variant=fused
  seed_decks fp16 --set dtype=fp16 --set variant=fused
  seed_decks bf16-exact --set dtype=bf16 --set precision=exact --set variant=fused
fi
if want gradient; then
  seed_decks fp32-grad --set gradient=true --set variant=fused
  seed_decks bf16-grad --set dtype=bf16 --set gradient=true --set variant=fused
fi

if want bench && [[ -x "$build/bin/klmini_bench" ]]; then
  echo "== Google Benchmark (cuda)"
  "$build/bin/klmini_bench" --benchmark_filter="${BENCH_FILTER:-^cuda/}" --benchmark_min_time=0.1 --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_display_aggregates_only=true \
    --benchmark_out="$out/bench.json" --benchmark_out_format=json > "$out/bench.log" 2>&1 || status=1
  grep -E "^cuda/.*_median" "$out/bench.log" | awk '{print $1, $2, $3, $(NF)}'
fi

# The PyTorch peers (eager, torch.compile, Liger where installed, read and copy references):
# fp32 loss, bf16 loss, and fp32 loss + gradient.
peers() {
  local label=$1
  shift
  echo "== peers: $label"
  PYTHONUNBUFFERED=1 python3 "$root/scripts/peers.py" --vocab "$vocabs" "${liger[@]}" "$@" --out "$out/$label.csv" \
    > "$out/$label.log" 2>&1 || status=1
  grep -E "vocab" "$out/$label.log" | sed "s/^/[$label] /"
}
if python3 -c "import torch" 2>/dev/null; then
  want peers && peers peers
  want peers-bf16 && peers peers-bf16 --dtype bf16
  want peers-grad && peers peers-grad --backward
fi
if want ncu && command -v ncu >/dev/null; then
  echo "== Nsight Compute: kernel times (median of 5 launches, us)"
  ncu=(ncu --clock-control none --metrics gpu__time_duration.sum --csv)
  ncu_vocabs=${NCU_VOCABS:-4096,131072}
  for v in ${ncu_vocabs//,/ }; do
    # The shape the seed run's trial chose, so that ncu's fused launches are all of one shape
    # (under auto, the trial's launches of every candidate share fused's kernel names).
    shape=auto
    json="$out/klmini-fp32-v$v.json"
    [[ -f "$json" ]] && shape=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fused_shape"]["shape"])' "$json")
    "${ncu[@]}" --log-file "$out/ncu-klmini-v$v.csv" "$build/bin/klmini" "$root/inputs/seed-v$v.toml" --set backend=cuda \
      --set variant=fused --set shape="$shape" --set verify=off --set warmup=1 --set repeats=5 \
      > "$out/ncu-klmini-v$v.log" 2>&1 || status=1
    echo "[ncu v$v] klmini's fused shape: $shape"
    if python3 -c "import torch" 2>/dev/null; then
      PYTHONUNBUFFERED=1 "${ncu[@]}" --log-file "$out/ncu-peers-v$v.csv" python3 "$root/scripts/peers.py" --vocab "$v" \
        "${liger[@]}" --warmup 2 --reps 5 --out "$out/ncu-peers-v$v-events.csv" > "$out/ncu-peers-v$v.log" 2>&1 || status=1
    fi
    python3 "$root/scripts/ncu_summary.py" "$out"/ncu-*-v"$v".csv | sed "s/^/[ncu v$v] /"
  done
fi
tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")"  # one file carries everything back
exit $status
