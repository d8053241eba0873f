#!/usr/bin/env bash
# A one-node Slurm cluster on this machine for the tests: munged, slurmctld and slurmd from
# Debian's packages, every file (key, config, state, spool, logs, sockets) in one folder, on
# ports of their own so a site's Slurm is not touched. Source it, then:
#   cluster_start DIR   start the daemons; exports SLURM_CONF; waits until the node is idle
#   cluster_stop DIR    stop them by their PIDs (the folder stays for the caller to remove)
# Needs root (slurmd runs jobs as their user) and the packages scripts/setup.sh --tests installs.

cluster_tools_missing() {
  local tool missing=()
  for tool in munged mungekey slurmctld slurmd sbatch scontrol sinfo srun; do
    command -v "$tool" >/dev/null || missing+=("$tool")
  done
  ((${#missing[@]} == 0)) || echo "${missing[*]}"
}

# A TCP port nothing listens on, from the range above the usual ephemeral ones' start.
cluster_free_port() {
  local port
  for port in $(shuf -i 20000-29999 -n 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return 0; }
  done
  return 1
}

cluster_start() {
  local dir=$1 node cpus memory ctl_port node_port i
  node=$(hostname -s)
  cpus=$(nproc)
  memory=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 9 / 10240))
  if ! ctl_port=$(cluster_free_port) || ! node_port=$(cluster_free_port); then
    echo "no free TCP port for slurmctld and slurmd" >&2
    return 1
  fi
  mkdir -p "$dir"/{state,spool,munge}
  chmod 700 "$dir" "$dir/munge"
  mungekey --create --keyfile="$dir/munge/munge.key" --force || return 1
  # --force: munged checks that no folder above its files is writable by others, and /tmp is.
  munged --force --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed" || return 1
  cat >"$dir/slurm.conf" <<EOF
ClusterName=klmini-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctl_port
SlurmdPort=$node_port
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups: the tests run in containers that do not delegate them.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
# Finished jobs: state and exit code kept in memory for scontrol and written to a text log.
MinJobAge=3600
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$SLURM_CONF" || return 1
  slurmd -f "$SLURM_CONF" -N "$node" || return 1
  for ((i = 0; i < 60; ++i)); do
    [[ $(sinfo -h -N -o %T 2>/dev/null) == idle ]] && return 0
    sleep 0.5
  done
  echo "the node did not become idle; sinfo says: $(sinfo -N 2>&1)" >&2
  tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2
  return 1
}

# Stops a daemon by the PID in its file and waits (up to 10 s) for it to be gone.
cluster_stop_pid() {
  local pidfile=$1 pid i
  [[ -f "$pidfile" ]] || return 0
  pid=$(cat "$pidfile")
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 100; ++i)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null
  return 0
}

cluster_stop() {
  local dir=$1
  cluster_stop_pid "$dir/slurmd.pid"
  cluster_stop_pid "$dir/slurmctld.pid"
  cluster_stop_pid "$dir/munge/munged.pid"
}
