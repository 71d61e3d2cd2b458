#!/usr/bin/env bash
# A throwaway Redis for tests on 127.0.0.1: no persistence, stopped by the pid in its pidfile.
#
#   deploy/local/redis.sh start|stop|kill|status
#
#   kill    SIGKILL the pid in the pidfile (a crash, for failover tests), wait until it is gone.
#
# Environment:
#   FR_REDIS_PORT           port (default 6390)
#   FR_RUN_DIR              pidfile, logfile and working dir (default <repo>/.run)
#   FR_REDIS_START_TIMEOUT  seconds to wait for PONG (default 20)
#   FR_REDIS_CLUSTER=1      start a Redis Cluster node (cluster bus on port + 10000, its
#                           nodes-PORT.conf in the run dir, kept across a kill and restart);
#                           deploy/local/redis-cluster.sh joins six of them into a cluster
#   FR_REDIS_NODE_TIMEOUT   cluster-node-timeout in ms (default 2000: a dead master's replica
#                           takes over within a few seconds, not the 15 s default)
#
# The pid and log files are per port (redis-PORT.pid, redis-PORT.log), so several instances
# can share a run dir. `start` installs Debian's redis-server when it is missing (as root,
# or through sudo). Exit codes: 0 ok; 1 error; 3 `status` of a stopped server (LSB);
# 75 `start` found the port taken by another process (callers may retry on another port).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PORT="${FR_REDIS_PORT:-6390}"
RUN_DIR="${FR_RUN_DIR:-$REPO_ROOT/.run}"
PIDFILE="$RUN_DIR/redis-$PORT.pid"
LOGFILE="$RUN_DIR/redis-$PORT.log"
START_TIMEOUT="${FR_REDIS_START_TIMEOUT:-20}"
STOP_TIMEOUT=10
EX_PORT_BUSY=75

log() { echo "redis.sh: $*" >&2; }
# shellcheck source=deploy/local/lib/common.sh
source "$REPO_ROOT/deploy/local/lib/common.sh" # port_open

ensure_installed() {
    if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
        return
    fi
    local sudo=()
    if [[ $EUID -ne 0 ]]; then
        command -v sudo >/dev/null || { log "redis-server is missing and we are not root"; exit 1; }
        sudo=(sudo -n)
    fi
    log "installing redis-server (apt-get)"
    # Parallel starts would fight over the dpkg lock: take turns (machine-wide lock file).
    (
        flock 9
        if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
            local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q
                -o DPkg::Lock::Timeout=120)
            "${apt[@]}" update
            "${apt[@]}" install -y --no-install-recommends redis-server
        fi
    ) 9>"${TMPDIR:-/tmp}/fr-redis-apt.lock" >&2
}

# Is $1 a live redis-server? (Not a zombie, not a reused pid: their cmdline differs.)
is_redis() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q "redis-server"; }

# The pid in the pidfile, if that process is still our redis-server.
our_pid() {
    [[ -s $PIDFILE ]] || return 1
    local pid
    pid="$(<"$PIDFILE")"
    [[ $pid =~ ^[0-9]+$ ]] && is_redis "$pid" || return 1
    echo "$pid"
}

answers_ping() { [[ "$(redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null)" == PONG ]]; }


fail_start() {
    log "redis-server did not answer on 127.0.0.1:$PORT; log tail ($LOGFILE):"
    tail -n 20 "$LOGFILE" >&2 || true
    stop >/dev/null 2>&1 || true
    if grep -q "Address already in use" "$LOGFILE" 2>/dev/null; then
        exit "$EX_PORT_BUSY"
    fi
    exit 1
}

wait_ready() {
    local deadline=$((SECONDS + START_TIMEOUT))
    until answers_ping && our_pid >/dev/null; do
        if ((SECONDS >= deadline)) || grep -q "Address already in use" "$LOGFILE" 2>/dev/null; then
            fail_start
        fi
        sleep 0.1
    done
}

start() {
    ensure_installed
    mkdir -p "$RUN_DIR"
    if our_pid >/dev/null; then
        wait_ready
        log "already running on 127.0.0.1:$PORT (pid $(our_pid))"
        return 0
    fi
    if port_open "$PORT"; then
        log "port $PORT is taken by another process; set FR_REDIS_PORT"
        exit "$EX_PORT_BUSY"
    fi
    rm -f "$PIDFILE"
    : >"$LOGFILE"
    local cluster=()
    if [[ ${FR_REDIS_CLUSTER:-0} == 1 ]]; then
        cluster=(--cluster-enabled yes --cluster-config-file "nodes-$PORT.conf"
            --cluster-node-timeout "${FR_REDIS_NODE_TIMEOUT:-2000}"
            --repl-diskless-sync-delay 0) # a new replica syncs now, not after 5 s
    fi
    # Absolute paths: redis-server changes into --dir before it opens the other files.
    local dir
    dir="$(cd "$RUN_DIR" && pwd)"
    # No config file: compiled-in defaults, plus loopback only and no persistence at all.
    redis-server --bind 127.0.0.1 --port "$PORT" --save '' --appendonly no \
        --daemonize yes --pidfile "$dir/${PIDFILE##*/}" --logfile "$dir/${LOGFILE##*/}" \
        --dir "$dir" "${cluster[@]}"
    wait_ready
    log "running on 127.0.0.1:$PORT (pid $(our_pid), run dir $RUN_DIR)"
}

stop() {
    local pid
    if ! pid="$(our_pid)"; then
        rm -f "$PIDFILE"
        log "not running on port $PORT"
        return 0
    fi
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + STOP_TIMEOUT))
    while is_redis "$pid" && ((SECONDS < deadline)); do
        sleep 0.1
    done
    if is_redis "$pid"; then
        log "pid $pid ignored TERM for ${STOP_TIMEOUT}s; sending KILL"
        kill -KILL "$pid" 2>/dev/null || true
        deadline=$((SECONDS + 5))
        while is_redis "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
    fi
    rm -f "$PIDFILE"
    log "stopped (pid $pid)"
}

crash() {
    local pid
    pid="$(our_pid)" || { log "not running on port $PORT"; return 1; }
    kill -KILL "$pid"
    local deadline=$((SECONDS + 5))
    while is_redis "$pid" && ((SECONDS < deadline)); do sleep 0.05; done
    rm -f "$PIDFILE"
    log "killed pid $pid (port $PORT)"
}

status() {
    local pid
    if pid="$(our_pid)"; then
        echo "running (pid $pid, 127.0.0.1:$PORT)"
    else
        echo "stopped"
        exit 3
    fi
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    kill) crash ;;
    status) status ;;
    *)
        echo "usage: $0 start|stop|kill|status" >&2
        exit 2
        ;;
esac
