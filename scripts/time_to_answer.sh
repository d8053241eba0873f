#!/usr/bin/env bash
# Time to a verified answer: the whole klmini process, timed from outside, RUNS times, one CSV
# row per run on stdout (build, run, wall_s, max_rss_kb, setup_s, reference_s, fused_median_s,
# loss). Wall time and peak memory come from /usr/bin/time; the phases from the run's JSON.
#   scripts/time_to_answer.sh KLMINI BUILD_LABEL RUNS [klmini arguments ...]
#   e.g. scripts/time_to_answer.sh build/host/bin/klmini a662432 5 --set tokens=8192 --set verify=full
# Exits non-zero when a run fails (verification included): its row is still printed; exits 77
# (nothing run) when /usr/bin/time or /usr/bin/python3 is missing.
set -uo pipefail
usage="usage: time_to_answer.sh KLMINI BUILD_LABEL RUNS [klmini arguments ...]"
exe=${1:?$usage}
label=${2:?$usage}
runs=${3:?$usage}
shift 3
for tool in time:time python3:python3; do
  [[ -x /usr/bin/${tool%%:*} ]] || { echo "time_to_answer: needs /usr/bin/${tool%%:*} (Debian package '${tool##*:}')" >&2; exit 77; }
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "time_to_answer: RUNS must be a positive integer, not '$runs'" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "build,run,wall_s,max_rss_kb,setup_s,reference_s,fused_median_s,loss"
status=0
for ((i = 1; i <= runs; ++i)); do
  /usr/bin/time -o "$work/time" -f "%e %M" "$exe" "$@" --json "$work/run.json" > "$work/log" 2>&1 || {
    status=1
    echo "time_to_answer: run $i failed; its output:" >&2
    cat "$work/log" >&2
  }
  read -r wall rss < <(tail -n 1 "$work/time")
  phases=$(/usr/bin/python3 - "$work/run.json" <<'PY' 2>/dev/null || echo ",,,"
import json, sys
d = json.load(open(sys.argv[1]))
fused = [r["median_s"] for r in d["results"] if r["variant"] == "fused"]
print(f'{d["setup_s"]},{d["reference_s"]},{fused[0] if fused else ""},{d["loss_text"]}')
PY
)
  echo "$label,$i,$wall,$rss,$phases"
  rm -f "$work/run.json"
done
exit $status
