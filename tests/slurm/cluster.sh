# A single-node Slurm cluster of this machine for one test, sourced by the Slurm tests: munged, slurmctld and
# slurmd with a slurm.conf, state, spool and sockets of their own under $SLURM_TEST_DIR, on ports nobody else
# uses. start_cluster exits 77 (ctest: skipped), saying why, where Slurm is not installed or cannot start;
# stop_cluster, run from the caller's EXIT trap, stops every daemon it started, also when the test fails.

slurm_skip() {
  echo "SKIP: $*" >&2
  exit 77
}

# A TCP port free on 127.0.0.1 now.
free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_cluster() {
  local dir="$1"
  for tool in munged slurmctld slurmd sbatch squeue scontrol srun; do
    command -v "$tool" > /dev/null || slurm_skip "$tool is not installed (Debian: slurm-wlm munge)"
  done
  [ -r /etc/munge/munge.key ] || slurm_skip "/etc/munge/munge.key is missing (the munge package makes it)"
  export SLURM_TEST_DIR="$dir"
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
  chmod 700 "$dir/munge"
  install -m 600 /etc/munge/munge.key "$dir/munge/key"
  munged --force --key-file="$dir/munge/key" --socket="$dir/munge/socket" --pid-file="$dir/munge/pid" \
    --log-file="$dir/munge/log" --seed-file="$dir/munge/seed" || slurm_skip "munged does not start"
  local host cpus mem ctld_port d_port
  host="$(hostname -s)"
  cpus="$(nproc)"
  mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
  ctld_port="$(free_port)"
  d_port="$(free_port)"
  cat > "$dir/slurm.conf" <<CONF
ClusterName=locitest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$SLURM_CONF" || { stop_cluster; slurm_skip "slurmctld does not start (see $dir/log)"; }
  slurmd -f "$SLURM_CONF" || { stop_cluster; slurm_skip "slurmd does not start (see $dir/log)"; }
  local i
  for i in $(seq 1 60); do
    if sinfo -h -o %t 2>/dev/null | grep -q '^idle'; then return 0; fi
    sleep 0.5
  done
  stop_cluster
  slurm_skip "the node never became idle (see $dir/log)"
}

stop_cluster() {
  local dir="${SLURM_TEST_DIR:-}"
  [ -n "$dir" ] || return 0
  scancel --full --quiet --user=root 2>/dev/null || true
  local f pid
  for f in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/pid"; do
    [ -f "$f" ] || continue
    pid="$(cat "$f")"
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
}

# Waits until no job of this cluster is pending or running (at most $1 seconds).
wait_idle() {
  local limit="${1:-300}" i
  for i in $(seq 1 $((limit * 2))); do
    [ -z "$(squeue -h -o %i 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  echo "FAIL: jobs still queued after $limit s:" >&2
  squeue >&2
  return 1
}
