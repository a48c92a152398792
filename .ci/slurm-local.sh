#!/usr/bin/env bash
# .ci/slurm-local.sh — a real, single-node Slurm cluster on this machine, for CI.
#
#   bash .ci/slurm-local.sh start    # install (idempotent), configure, start, wait for node idle
#   bash .ci/slurm-local.sh status   # show our daemons, sinfo, squeue
#   bash .ci/slurm-local.sh stop     # stop exactly the daemons `start` launched (safe to repeat)
#
# Debian 12 packages (Slurm 22.05, MUNGE 0.5.15); no systemd needed: the
# daemons are run in the foreground (-D / -F) as background jobs of this script,
# and their PIDs (+ kernel start time, to survive PID reuse) are recorded under
# $LOCPROJ_SLURM_STATE/pids.  `stop` only ever signals those recorded PIDs.
#
# Environment knobs (all optional):
#   LOCPROJ_SLURM_STATE    state dir (pids, logs, spool)      [/tmp/locproj-slurm]
#   LOCPROJ_SLURM_CONF     slurm.conf path written/used        [/etc/slurm/slurm.conf]
#   LOCPROJ_SLURM_TIMEOUT  seconds to wait for node idle       [60]
#   LOCPROJ_SLURM_PARTITION partition name                     [debug]
#   LOCPROJ_SLURM_MEM_MB   override RealMemory (MB)            [from `slurmd -C`]
#   LOCPROJ_SLURM_FORCE=1  overwrite a slurm.conf not written by this script
#   LOCPROJ_SLURM_NO_INSTALL=1  never call apt-get (fail if packages are missing)
#
# See docs/slurm.md.
set -euo pipefail

STATE="${LOCPROJ_SLURM_STATE:-/tmp/locproj-slurm}"
CONF="${LOCPROJ_SLURM_CONF:-/etc/slurm/slurm.conf}"
TIMEOUT="${LOCPROJ_SLURM_TIMEOUT:-60}"
PARTITION="${LOCPROJ_SLURM_PARTITION:-debug}"
PIDDIR="$STATE/pids"
LOGDIR="$STATE/log"
SPOOL="$STATE/spool"
MARKER="# managed-by: locproj .ci/slurm-local.sh"
PACKAGES=(slurmctld slurmd slurm-client munge)
# start order; stop goes in reverse
DAEMONS=(munged slurmctld slurmd)

export SLURM_CONF="$CONF"
export DEBIAN_FRONTEND=noninteractive

log() { printf '[slurm-local] %s\n' "$*" >&2; }
die() { printf '[slurm-local] ERROR: %s\n' "$*" >&2; exit 1; }

need_root() { [[ $(id -u) -eq 0 ]] || die "must run as root (installs packages, starts daemons)"; }

# ---------------------------------------------------------------- pid records
# A record is "<pid> <starttime-in-clock-ticks>" (field 22 of /proc/<pid>/stat),
# so a recycled PID is never mistaken for one of our daemons.
proc_starttime() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    # strip "pid (comm) " — comm may contain spaces/parens
    stat=${stat##*) }
    # after stripping, field 22 of the original is field 20
    awk '{print $20}' <<<"$stat"
}

# prints the pid if the record in $1 refers to a live process, else returns 1
recorded_pid_alive() {
    local f=$1 pid st now
    [[ -s $f ]] || return 1
    read -r pid st <"$f" || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    now=$(proc_starttime "$pid") || return 1
    [[ $now == "$st" ]] || return 1
    echo "$pid"
}

record_pid() {
    local name=$1 pid=$2 st
    st=$(proc_starttime "$pid") || die "$name (pid $pid) died immediately; see $LOGDIR/$name.out"
    echo "$pid $st" >"$PIDDIR/$name.pid"
}

# ---------------------------------------------------------------- install
install_packages() {
    local missing=() p
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if ((${#missing[@]} == 0)); then
        log "packages already installed: ${PACKAGES[*]}"
        return
    fi
    [[ ${LOCPROJ_SLURM_NO_INSTALL:-0} == 1 ]] && die "missing packages: ${missing[*]} (LOCPROJ_SLURM_NO_INSTALL=1)"
    log "installing: ${missing[*]}"
    # Keep maintainer scripts from starting munge/slurm daemons through
    # /etc/init.d: we start exactly the ones we want below and must own their PIDs.
    local policy=/usr/sbin/policy-rc.d added_policy=0
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        added_policy=1
    fi
    local t0=$SECONDS rc=0 aptlog="$LOGDIR/apt.log"
    log "apt output goes to $aptlog"
    {
        # Refresh the index only if apt can't resolve the packages as it is
        # (e.g. a fresh machine with empty /var/lib/apt/lists).
        if ! apt-get install -y -s --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
            log "apt-get update"
            apt-get update
        fi
        apt-get install -y --no-install-recommends \
            -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}"
    } >"$aptlog" 2>&1 || rc=$?
    if ((added_policy)); then rm -f "$policy"; fi
    if ((rc != 0)); then
        tail -n 40 "$aptlog" >&2 || true
        die "apt-get install failed (rc=$rc)"
    fi
    log "apt install took $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------- config
# true when this process may make a cgroup (v1) of the memory controller: task/cgroup can then
# confine each job's memory
cgroup_v1_memory() {
    local probe=/sys/fs/cgroup/memory/locproj-probe.$$
    [[ -d /sys/fs/cgroup/memory ]] && mkdir "$probe" 2>/dev/null && rmdir "$probe"
}

write_config() {
    local host cfgline mem
    host=$(hostname -s)
    [[ -n $host ]] || die "hostname -s is empty"

    # e.g. "NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=24031"
    cfgline=$(slurmd -C 2>/dev/null | grep -m1 '^NodeName=') || die "slurmd -C printed no NodeName line"
    cfgline=$(sed -E 's/ *UpTime=[^ ]*//' <<<"$cfgline")
    if [[ -n ${LOCPROJ_SLURM_MEM_MB:-} ]]; then
        cfgline=$(sed -E "s/RealMemory=[0-9]+/RealMemory=${LOCPROJ_SLURM_MEM_MB}/" <<<"$cfgline")
    fi
    mem=$(grep -oE 'RealMemory=[0-9]+' <<<"$cfgline" || true)
    [[ -n $mem ]] || die "no RealMemory in: $cfgline"
    # force the node name to `hostname -s` (slurmd -C already uses it, but be explicit)
    cfgline=$(sed -E "s/^NodeName=[^ ]+/NodeName=$host/" <<<"$cfgline")

    if [[ -e $CONF ]] && ! grep -qF "$MARKER" "$CONF"; then
        [[ ${LOCPROJ_SLURM_FORCE:-0} == 1 ]] ||
            die "$CONF exists and was not written by this script; refusing to overwrite (LOCPROJ_SLURM_FORCE=1 to override, or set LOCPROJ_SLURM_CONF)"
        cp -a "$CONF" "$CONF.bak.$(date +%s)"
    fi
    mkdir -p "$(dirname "$CONF")" "$SPOOL/ctld" "$SPOOL/d" "$LOGDIR" "$PIDDIR"
    # Memory limits, as a real cluster enforces them. With a cgroup v1 memory controller that we
    # may write, task/cgroup confines each job to its --mem, and the kernel's OOM killer ends a job
    # that exceeds it (sacct: OUT_OF_MEMORY). Without one, slurmd polls each job's memory every
    # second and kills it (sacct: FAILED); then no cgroup.conf is written, since Slurm 22.05's
    # slurmd refuses to start with `CgroupPlugin=disabled` there. The mode is kept in
    # $STATE/memory_enforcement for CI.
    local cgroup_conf task proctrack gather_params
    cgroup_conf=$(dirname "$CONF")/cgroup.conf
    if cgroup_v1_memory; then
        task=task/cgroup proctrack=proctrack/cgroup gather_params=NoOverMemoryKill
        printf '%s\nCgroupPlugin=cgroup/v1\nCgroupMountpoint=/sys/fs/cgroup\nConstrainRAMSpace=yes\nConstrainSwapSpace=yes\n' \
            "$MARKER" >"$cgroup_conf"
        echo cgroup >"$STATE/memory_enforcement"
    else
        task=task/none proctrack=proctrack/linuxproc gather_params=OverMemoryKill
        if [[ -e $cgroup_conf ]] && grep -qF "$MARKER" "$cgroup_conf"; then rm -f "$cgroup_conf"; fi
        if [[ -e $cgroup_conf ]]; then
            log "WARNING: $cgroup_conf exists; it may stop slurmd from starting"
        fi
        echo polling >"$STATE/memory_enforcement"
    fi

    local tmp
    tmp=$(mktemp)
    cat >"$tmp" <<EOF
$MARKER
# Single-node CI cluster; regenerated on every 'start'. Do not edit by hand.
ClusterName=locproj
SlurmctldHost=${host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
SwitchType=switch/none
ProctrackType=${proctrack}
TaskPlugin=${task}
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
ReturnToService=2
MinJobAge=300
# reject (instead of leaving PENDING forever) jobs asking for more than the node has
EnforcePartLimits=ALL
InactiveLimit=0
KillWait=10
Waittime=0
SlurmctldTimeout=120
SlurmdTimeout=300
MailProg=/bin/true
# accounting off (no slurmdbd): plain sacct does not work, use squeue/scontrol; each finished
# job's end state (COMPLETED, TIMEOUT, ...) is kept in a text file that \`sacct --completion\` reads
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=task=1
JobAcctGatherParams=${gather_params}
JobCompType=jobcomp/filetxt
JobCompLoc=$STATE/jobcomp.log
StateSaveLocation=$SPOOL/ctld
SlurmdSpoolDir=$SPOOL/d
SlurmctldPidFile=$STATE/slurmctld.pidfile
SlurmdPidFile=$STATE/slurmd.pidfile
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdLogFile=$LOGDIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
${cfgline} NodeAddr=127.0.0.1 NodeHostname=${host} State=UNKNOWN
PartitionName=${PARTITION} Nodes=${host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
    install -m 644 "$tmp" "$CONF"
    rm -f "$tmp"
    cp "$CONF" "$STATE/slurm.conf"
    log "wrote $CONF: ${cfgline} partition=${PARTITION}"
}

# ---------------------------------------------------------------- munge
setup_munge_key() {
    local key=/etc/munge/munge.key
    mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
    chown munge:munge /etc/munge /var/lib/munge /var/log/munge /run/munge
    chmod 700 /etc/munge /var/lib/munge /var/log/munge
    chmod 755 /run/munge
    if [[ ! -s $key ]]; then
        log "creating munge key $key"
        if command -v mungekey >/dev/null; then
            mungekey --create --keyfile="$key" --force
        else
            dd if=/dev/urandom bs=1 count=1024 of="$key" status=none
        fi
    fi
    chown munge:munge "$key"
    chmod 400 "$key"
}

munge_works() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

start_munged() {
    local pid
    if pid=$(recorded_pid_alive "$PIDDIR/munged.pid"); then
        log "munged already running (ours, pid $pid)"
        return
    fi
    rm -f "$PIDDIR/munged.pid"
    if munge_works; then
        log "a munged not started by this script is already serving; reusing it (stop will not touch it)"
        return
    fi
    setup_munge_key
    log "starting munged"
    # setpriv execs (no fork), so $! is munged itself; -F = foreground
    setsid setpriv --reuid=munge --regid=munge --init-groups \
        /usr/sbin/munged -F >"$LOGDIR/munged.out" 2>&1 </dev/null &
    pid=$!
    sleep 0.3
    record_pid munged "$pid"
    local i
    for i in $(seq 1 50); do
        munge_works && { log "munged up (pid $pid)"; return; }
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    cat "$LOGDIR/munged.out" >&2 || true
    die "munged did not come up"
}

# ---------------------------------------------------------------- slurm
start_daemon() { # name, binary, args...
    local name=$1 pid
    shift
    if pid=$(recorded_pid_alive "$PIDDIR/$name.pid"); then
        log "$name already running (ours, pid $pid)"
        return
    fi
    rm -f "$PIDDIR/$name.pid"
    if pgrep -x "$name" >/dev/null; then
        die "a $name not started by this script is running (pid(s): $(pgrep -x "$name" | tr '\n' ' ')); stop it first"
    fi
    log "starting $name: $*"
    setsid "$@" >"$LOGDIR/$name.out" 2>&1 </dev/null &
    pid=$!
    sleep 0.3
    record_pid "$name" "$pid"
    log "$name started (pid $pid)"
}

dump_logs() {
    local f
    for f in "$LOGDIR"/*.out "$LOGDIR"/*.log; do
        [[ -e $f ]] || continue
        printf '\n===== %s (last 40 lines) =====\n' "$f" >&2
        tail -n 40 "$f" >&2 || true
    done
    printf '\n===== scontrol show node =====\n' >&2
    timeout 10 scontrol show node >&2 2>&1 || true
}

wait_idle() {
    local host state deadline last_resume=-100
    host=$(hostname -s)
    deadline=$((SECONDS + TIMEOUT))
    log "waiting up to ${TIMEOUT}s for node $host to be idle"
    while ((SECONDS < deadline)); do
        for d in "${DAEMONS[@]}"; do
            [[ $d == munged && ! -e $PIDDIR/munged.pid ]] && continue
            recorded_pid_alive "$PIDDIR/$d.pid" >/dev/null || { dump_logs; die "$d exited during startup"; }
        done
        state=$(timeout 10 sinfo -h -n "$host" -o %T 2>/dev/null | head -n1 || true)
        case $state in
        idle | mixed | allocated)
            log "node $host is $state — cluster ready (partition $PARTITION)"
            return 0
            ;;
        inval*)
            # registered resources < slurm.conf (CPUs/RealMemory): resume can't fix it
            log "node is '$state': slurmd reports fewer CPUs/less memory than slurm.conf"
            break
            ;;
        down | drain*)
            # not-responding states carry a '*' suffix and are not resumable yet
            if ((SECONDS - last_resume >= 3)); then
                log "node is '$state'; scontrol update nodename=$host state=resume"
                timeout 10 scontrol update nodename="$host" state=resume || true
                last_resume=$SECONDS
            fi
            ;;
        esac
        sleep 1
    done
    log "node state is '${state:-<no answer>}' (waited $((SECONDS - deadline + TIMEOUT)) s of ${TIMEOUT} s)"
    dump_logs
    die "Slurm node did not become idle (daemons left running for inspection: 'bash $0 status', then 'bash $0 stop')"
}

# ---------------------------------------------------------------- commands
cmd_start() {
    need_root
    local t0=$SECONDS
    mkdir -p "$PIDDIR" "$LOGDIR" "$SPOOL"
    install_packages
    if recorded_pid_alive "$PIDDIR/slurmctld.pid" >/dev/null; then
        log "slurmctld already running from a previous start; keeping current $CONF"
    else
        write_config
    fi
    start_munged
    # -D foreground (so $! is the daemon), -c: clean start, no jobs from an old run
    start_daemon slurmctld /usr/sbin/slurmctld -D -c -f "$CONF"
    start_daemon slurmd /usr/sbin/slurmd -D -f "$CONF"
    wait_idle
    log "start done in $((SECONDS - t0)) s (SLURM_CONF=$CONF, state in $STATE)"
}

stop_one() {
    local name=$1 f="$PIDDIR/$1.pid" pid i
    if ! pid=$(recorded_pid_alive "$f"); then
        [[ -e $f ]] && log "$name: recorded process already gone"
        rm -f "$f"
        return 0
    fi
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 150); do
        recorded_pid_alive "$f" >/dev/null || break
        sleep 0.2
    done
    if recorded_pid_alive "$f" >/dev/null; then
        log "$name (pid $pid) ignored SIGTERM for 30 s; SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        sleep 0.5
    fi
    rm -f "$f"
}

cmd_stop() {
    need_root
    if [[ ! -d $PIDDIR ]]; then
        log "nothing to stop (no $PIDDIR)"
        return 0
    fi
    # Cancel jobs left in *our* cluster so slurmd's job steps (slurmstepd) end too.
    if recorded_pid_alive "$PIDDIR/slurmctld.pid" >/dev/null &&
        [[ -n $(timeout 10 squeue -h -o %i 2>/dev/null || true) ]]; then
        log "cancelling jobs still in the local cluster"
        timeout 10 scancel --user=root --full 2>/dev/null || timeout 10 scancel -u root || true
        sleep 2
    fi
    local i
    for ((i = ${#DAEMONS[@]} - 1; i >= 0; i--)); do
        stop_one "${DAEMONS[i]}"
    done
    log "stopped"
}

cmd_status() {
    local d pid rc=0
    for d in "${DAEMONS[@]}"; do
        if pid=$(recorded_pid_alive "$PIDDIR/$d.pid"); then
            log "$d: running (pid $pid)"
        else
            log "$d: not running (from this script)"
            rc=1
        fi
    done
    if ((rc == 0)); then
        timeout 10 sinfo || true
        timeout 10 squeue || true
    fi
    return $rc
}

case "${1:-}" in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
*)
    echo "usage: $0 {start|stop|status}" >&2
    exit 2
    ;;
esac
