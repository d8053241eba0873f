#!/usr/bin/env bash
# compute-sanitizer (memcheck with leak check, racecheck, initcheck, synccheck) over klmini's
# Cuda kernels: every variant, both target forms, every dtype and precision, the term matrix,
# the gradient, validation, and both device shapes (16-byte chunks, and the row segments that
# unaligned rows fall back to). Small decks: the tools slow kernels down 10-100x.
# Exit code: 0 when every tool reports 0 errors on every deck, 1 otherwise.
#   scripts/gpu_sanitize.sh BUILD_DIR OUTDIR
set -uo pipefail
build=${1:?usage: gpu_sanitize.sh BUILD_DIR OUTDIR}
out=${2:?usage: gpu_sanitize.sh BUILD_DIR OUTDIR}
mkdir -p "$out"
sanitizer=$(command -v compute-sanitizer || find /usr/local -maxdepth 3 -path "*/bin/compute-sanitizer" 2>/dev/null | head -1)
if [[ -z "$sanitizer" ]]; then echo "gpu_sanitize.sh: compute-sanitizer not found" >&2; exit 2; fi
"$sanitizer" --version | tail -1

common=(--set backend=cuda --set warmup=0 --set repeats=1 --set verify=full)
decks=(
  "chunks-fp32:--set tokens=64 --set vocab=4096 --set variant=all --set gradient=true --set validate=true"
  "segments-fp32-logt:--set tokens=33 --set vocab=1031 --set variant=all --set log_target=true --set gradient=true"
  "chunks-fp32-exact:--set tokens=64 --set vocab=4096 --set precision=exact"
  "chunks-bf16-exact:--set tokens=64 --set vocab=4096 --set dtype=bf16 --set precision=exact --set gradient=true"
  "segments-fp16-none:--set tokens=17 --set vocab=1030 --set dtype=fp16 --set reduction=none --set validate=true"
  "chunks-fp32-exact-none:--set tokens=16 --set vocab=2048 --set precision=exact --set reduction=none --set gradient=true"
)
status=0
for tool in memcheck racecheck initcheck synccheck; do
  extra=()
  [[ $tool == memcheck ]] && extra=(--leak-check full)
  for entry in "${decks[@]}"; do
    name=${entry%%:*}
    read -r -a sets <<< "${entry#*:}"
    log="$out/$tool-$name.log"
    timeout "${SANITIZE_TIMEOUT:-300}" "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 9 --print-limit 20 \
      "$build/bin/klmini" "${common[@]}" "${sets[@]}" > "$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$log" | tr '\n' ' ')
    verdict=$(grep -E "^Verification" "$log")
    printf '%-10s %-24s rc=%d  %s  %s\n' "$tool" "$name" "$rc" "$summary" "$verdict"
    [[ $rc -ne 0 ]] && status=1
  done
done
exit $status
