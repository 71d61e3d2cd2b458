#!/usr/bin/env bash
# Start Redis and Kafka on loopback for a developer session and print the settings to use.
#
#   eval "$(deploy/local/up.sh)"      # or: deploy/local/up.sh && source .run/local/env
#   ...                               # frecall ... now talks to the local services
#   deploy/local/down.sh              # stops both, by the pids in their pidfiles
#
# stdout carries only `export NAME=VALUE` lines (FR_REDIS_URL, FR_KAFKA_BOOTSTRAP); progress and
# errors go to stderr. The same lines are written to <run dir>/env.
#
# Idempotent: a service already running from this run dir is reused, not started twice (a Redis
# already running here on another port is reused too; run down.sh first to change ports).
# When Kafka fails to start, a Redis started by this same call is stopped again.
#
# Environment:
#   FR_REDIS_PORT              Redis port (default 6379)
#   FR_KAFKA_PORT              Kafka listener port (default 9092)
#   FR_KAFKA_CONTROLLER_PORT   Kafka controller port (default FR_KAFKA_PORT + 1)
#   FR_LOCAL_RUN_DIR           run dir with pidfiles, logs and broker data (default <repo>/.run/local)
#   FR_KAFKA_KEEP_DATA=1       keep Kafka's topics from the previous session (default: fresh;
#                              Redis never persists, so `frecall replay --from-kafka` rebuilds it)
#   FR_KAFKA_START_TIMEOUT, FR_KAFKA_JVM_OPTS, JAVA_HOME, FR_PYTHON   passed on to kafka.sh
#
# Exit status: 0 ok; 1 failure; 75 a port is taken by another process (set the *_PORT variable).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../.." && pwd)"
RUN_DIR="${FR_LOCAL_RUN_DIR:-$REPO_ROOT/.run/local}"
REDIS_PORT="${FR_REDIS_PORT:-6379}"
KAFKA_PORT="${FR_KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${FR_KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"

log() { echo "up.sh: $*" >&2; }

# redis.sh and kafka.sh keep their pidfiles, logs and data under FR_RUN_DIR.
export FR_RUN_DIR="$RUN_DIR"
if [[ -z ${FR_PYTHON:-} && -x $REPO_ROOT/.venv/bin/python ]]; then
    export FR_PYTHON="$REPO_ROOT/.venv/bin/python" # kafka.sh's metadata probe (confluent-kafka)
fi

mkdir -p "$RUN_DIR"
# One up.sh/down.sh at a time per run dir. Children get `7>&-`: a daemonized redis-server must
# not inherit (and hold) this lock.
exec 7>"$RUN_DIR/.session.lock"
flock -w 300 7 || { log "another up.sh/down.sh holds $RUN_DIR/.session.lock"; exit 1; }

# The port of a Redis already running from this run dir (its pidfile names the port).
running_redis_port() {
    local f port
    for f in "$RUN_DIR"/redis-*.pid; do
        [[ -e $f ]] || continue
        port="${f##*/redis-}"
        port="${port%.pid}"
        [[ $port =~ ^[0-9]+$ ]] || continue
        if FR_REDIS_PORT="$port" bash "$HERE/redis.sh" status >/dev/null 2>&1 7>&-; then
            echo "$port"
            return 0
        fi
    done
    return 1
}

port_hint() { # service variable status
    if (($3 == 75)); then
        log "$1: its port is taken by another process; set $2 to a free port"
    else
        log "$1 failed to start (exit $3)"
    fi
}

# --- Redis ------------------------------------------------------------------------------
started_redis=0
if running="$(running_redis_port)"; then
    if [[ $running != "$REDIS_PORT" ]]; then
        log "Redis already runs from $RUN_DIR on port $running (not $REDIS_PORT); reusing it" \
            "(run deploy/local/down.sh first to change ports)"
    fi
    REDIS_PORT="$running"
else
    started_redis=1
fi
status=0
FR_REDIS_PORT="$REDIS_PORT" bash "$HERE/redis.sh" start 7>&- || status=$?
if ((status != 0)); then
    port_hint Redis FR_REDIS_PORT "$status"
    exit "$status"
fi

# --- Kafka ------------------------------------------------------------------------------
status=0
out="$(FR_KAFKA_PORT="$KAFKA_PORT" FR_KAFKA_CONTROLLER_PORT="$KAFKA_CONTROLLER_PORT" \
    bash "$HERE/kafka.sh" start 7>&-)" || status=$?
if ((status != 0)); then
    port_hint Kafka "FR_KAFKA_PORT / FR_KAFKA_CONTROLLER_PORT" "$status"
    if ((started_redis)); then
        log "stopping the Redis this call started"
        FR_REDIS_PORT="$REDIS_PORT" bash "$HERE/redis.sh" stop 7>&- || true
    fi
    exit "$status"
fi
# kafka.sh prints FR_KAFKA_BOOTSTRAP=HOST:PORT (the running broker's, if it was already up).
bootstrap="$(sed -n 's/^FR_KAFKA_BOOTSTRAP=//p' <<<"$out" | tail -n 1)"
[[ -n $bootstrap ]] || { log "kafka.sh printed no FR_KAFKA_BOOTSTRAP line"; exit 1; }
if [[ $bootstrap != "127.0.0.1:$KAFKA_PORT" ]]; then
    log "Kafka already runs from $RUN_DIR at $bootstrap (not port $KAFKA_PORT); reusing it" \
        "(run deploy/local/down.sh first to change ports)"
fi

# --- Settings ---------------------------------------------------------------------------
settings="$(
    printf 'export FR_REDIS_URL=%q\n' "redis://127.0.0.1:$REDIS_PORT/0"
    printf 'export FR_KAFKA_BOOTSTRAP=%q\n' "$bootstrap"
)"
printf '%s\n' "$settings" >"$RUN_DIR/env"
printf '%s\n' "$settings"
log "Redis 127.0.0.1:$REDIS_PORT and Kafka $bootstrap are up (run dir $RUN_DIR)."
log "Use them: eval \"\$(deploy/local/up.sh)\"  or  source ${RUN_DIR#"$REPO_ROOT"/}/env;" \
    "stop them: deploy/local/down.sh. FR_QDRANT_URL is not set: vectors stay in Qdrant Edge" \
    "under FR_DATA_DIR unless you point it at a Qdrant server."
