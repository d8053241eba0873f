#!/usr/bin/env bash
# klmini under a memory limit as a batch job sees it: a cgroup limit of 768 MiB (what Slurm's
# --mem sets) and, separately, an address-space limit (ulimit -v). A deck that needs 2 GiB must end
# with exit 2 and the README's message, before anything is allocated; a small deck must still run.
# Needs root and a writable cgroup memory controller (v2, or v1's memory hierarchy): otherwise it
# reports itself skipped (exit 77).
# Given an MPI launcher, the ranks instead: 4 ranks in the cgroup whose shares (256 MiB each) fit
# alone but not together must all exit 2, with one message naming both amounts and the limit,
# without MPI_Abort and within a minute; 4 ranks of a small deck still run there.
# Usage: memory_limit.sh KLMINI DECK [on|off] [MPIEXEC ARGS... NUMPROC_FLAG]
#   (off: skip ulimit -v, e.g. under AddressSanitizer)
set -euo pipefail
klmini=$1 deck=$2 address_limit=${3:-on}
launcher=("${@:4}")
limit=$((768 * 1024 * 1024))
big=(--set tokens=65536 --set vocab=4096 --set variant=fused)  # 2 x 1 GiB of fp32 inputs

expect_refused() {  # LABEL LIMIT_WORDS COMMAND...
  local label=$1 words=$2 out rc=0
  shift 2
  out=$("$@" 2>&1) || rc=$?
  if [[ $rc -ne 2 || $out != *"needs "*" GiB of host memory"*"are available ($words"* ]]; then
    echo "FAIL ($label): exit $rc, expected 2 and 'are available ($words...'"
    echo "$out" | tail -5
    exit 1
  fi
  echo "ok ($label): $(echo "$out" | grep -m1 'needs')"
}

# The address-space limit: 1.5 GiB of virtual memory.
[[ $address_limit == off || ${#launcher[@]} -gt 0 ]] ||
  expect_refused "ulimit -v" "ulimit -v" bash -c "ulimit -v $((1536 * 1024)); exec \"\$0\" \"\$@\"" "$klmini" "$deck" "${big[@]}"

# A cgroup of its own, removed on exit.
group=""
if [[ $(id -u) -ne 0 ]]; then echo "skipped: needs root to make a cgroup"; exit 77; fi
if [[ -f /sys/fs/cgroup/cgroup.controllers ]] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
  parent=/sys/fs/cgroup
  grep -qw memory "$parent/cgroup.subtree_control" || echo +memory > "$parent/cgroup.subtree_control" || true
  limit_file=memory.max swap_file=memory.swap.max
elif [[ -d /sys/fs/cgroup/memory ]]; then
  parent=/sys/fs/cgroup/memory
  limit_file=memory.limit_in_bytes swap_file=""
else
  echo "skipped: no cgroup memory controller"; exit 77
fi
group=$parent/klmini_test_memory_$$
cleanup() {
  if [[ -n $group && -d $group ]]; then
    while read -r pid; do echo "$pid" > "$parent/cgroup.procs" 2>/dev/null || true; done < "$group/cgroup.procs"
    rmdir "$group" 2>/dev/null || true
  fi
}
trap cleanup EXIT
if ! mkdir "$group" 2>/dev/null || ! echo "$limit" > "$group/$limit_file" 2>/dev/null; then
  echo "skipped: cannot make a cgroup with a memory limit under $parent"; exit 77
fi
[[ -z $swap_file || ! -f $group/$swap_file ]] || echo 0 > "$group/$swap_file"

in_group() { bash -c "echo \$\$ > '$group/cgroup.procs' && exec \"\$0\" \"\$@\"" "$@"; }

if ((${#launcher[@]})); then
  big=(--set tokens=32768 --set vocab=4096 --set variant=fused --set verify=off)  # 4 x 256 MiB of inputs
  refusal="klmini: error: the 4 ranks on this node need 1.00 GiB of host memory together"
  rc=0
  out=$(in_group timeout 120 "${launcher[@]}" 4 "$klmini" "$deck" "${big[@]}" 2>&1) || rc=$?
  if [[ $rc -ne 2 || $(grep -c "$refusal" <<<"$out") -ne 1 || $out == *MPI_ABORT* ||
    $out != *"GiB are available on the node (the cgroup memory limit of "* ]]; then
    echo "FAIL (4 ranks over the node's limit): exit $rc, expected 2 and one line '$refusal ...'"
    echo "$out" | tail -12
    exit 1
  fi
  echo "ok (4 ranks over the node's limit): $(grep -m1 'klmini: error' <<<"$out")"
  # Every rank's own exit code: the launcher ends the others once one exits non-zero, so each
  # rank's shell records its klmini's code and exits 0.
  codes=$(mktemp -d)
  # shellcheck disable=SC2016  # expanded by each rank's shell
  each_rank=(bash -c '"$0" "$@" >/dev/null 2>&1; echo $? > "'"$codes"'/rank_$$"' "$klmini" "$deck")
  in_group timeout 120 "${launcher[@]}" 4 "${each_rank[@]}" "${big[@]}" || true
  exits=$(cat "$codes"/rank_* 2>/dev/null | sort | uniq -c | xargs)
  rm -rf "$codes"
  [[ $exits == "4 2" ]] || { echo "FAIL: the 4 ranks' exit codes (count code): '$exits', expected '4 2'"; exit 1; }
  echo "ok (every one of the 4 ranks exited 2)"
  out=$(in_group timeout 120 "${launcher[@]}" 4 "$klmini" "$deck" 2>&1) ||
    { echo "FAIL: 4 ranks of the small deck did not run in the cgroup"; echo "$out" | tail -5; exit 1; }
  [[ $out == *"Verification: PASSED"* ]] || { echo "FAIL: 4 ranks of the small deck did not pass"; exit 1; }
  echo "ok (4 ranks of the small deck under the cgroup limit)"
  exit 0
fi
expect_refused "cgroup limit" "the cgroup memory limit of " in_group "$klmini" "$deck" "${big[@]}"
out=$(in_group "$klmini" "$deck" 2>&1) || { echo "FAIL: the small deck did not run in the cgroup"; echo "$out" | tail -5; exit 1; }
[[ $out == *"Verification: PASSED"* ]] || { echo "FAIL: the small deck did not pass"; exit 1; }
echo "ok (small deck under the cgroup limit)"
