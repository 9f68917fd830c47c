#!/usr/bin/env bash
# A throw-away single-node Slurm cluster for the `slurm_cluster` test (sim-harness/tests/
# cli_slurm.rs), every file under one scratch directory:
#
#   cluster.sh start DIR CTLD_PORT SLURMD_PORT   munged, slurmctld, slurmd; waits (bounded) until
#                                                 the node is idle; prints SLURM_CONF=DIR/slurm.conf
#   cluster.sh stop DIR                           SIGTERM to each daemon, waits (bounded), then SIGKILL
#
# Needs root and the Debian packages slurm-wlm and munge (.ci/run installs them). What works on
# these machines (no systemd, no cgroups) is noted in shared/slurm/README.md: the settings below
# follow it. munged uses its own key and socket here, so nothing under /etc or /run is touched
# and a munged the machine may run is left alone.
set -euo pipefail

cmd=${1:?start|stop}
dir=$(realpath "${2:?scratch directory}")

stop_pid() { # name pidfile: SIGTERM, wait up to 10 s for the process to go, then SIGKILL
    local pidf=$2 pid i
    [ -s "$pidf" ] || return 0
    pid=$(cat "$pidf")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for i in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            # A zombie (not reaped yet) counts as gone.
            [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] && break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid" | cut -c1)" != Z ]; then
            echo "cluster.sh: $1 (pid $pid) ignored SIGTERM for 10 s: SIGKILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$pidf"
}

case "$cmd" in
start)
    ctld_port=${3:?slurmctld port}
    slurmd_port=${4:?slurmd port}
    mkdir -p "$dir"/{munge,state,spool,log}
    chmod 0700 "$dir/munge"
    # munged refuses a key not owned by its user; root runs it here, so root owns the key.
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 0400 "$dir/munge/munge.key"
    /usr/sbin/munged --force \
        --socket="$dir/munge/munge.socket" \
        --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/munge/munged.pid" \
        --log-file="$dir/log/munged.log" \
        --seed-file="$dir/munge/munged.seed"
    hw=$(slurmd -C | head -1 | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
    cat >"$dir/slurm.conf" <<CONF
ClusterName=dcfabtest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CryptoType=crypto/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MailProg=/bin/true
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
NodeName=localhost $hw RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$dir/slurm.conf"
    /usr/sbin/slurmctld -f "$SLURM_CONF"
    /usr/sbin/slurmd -f "$SLURM_CONF" -N localhost
    for i in $(seq 150); do
        state=$(sinfo -h -o %T 2>/dev/null || true)
        if [ "$state" = idle ]; then
            echo "SLURM_CONF=$SLURM_CONF"
            exit 0
        fi
        sleep 0.2
    done
    echo "cluster.sh: the node is not idle after 30 s (sinfo: '${state:-}'); logs in $dir/log" >&2
    exit 1
    ;;
stop)
    # Cancel what is still queued or running (only on this cluster: SLURM_CONF is its own).
    if [ -f "$dir/slurm.conf" ]; then
        SLURM_CONF="$dir/slurm.conf" timeout 5 scancel --quiet --user="$(id -un)" 2>/dev/null || true
    fi
    stop_pid slurmd "$dir/slurmd.pid"
    stop_pid slurmctld "$dir/slurmctld.pid"
    stop_pid munged "$dir/munge/munged.pid"
    ;;
*)
    echo "usage: cluster.sh start DIR CTLD_PORT SLURMD_PORT | stop DIR" >&2
    exit 2
    ;;
esac
