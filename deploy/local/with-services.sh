#!/usr/bin/env bash
# Run a command with the services the tests need, then stop what this script started.
#
#   deploy/local/with-services.sh CMD [ARG...]
#
# Exports to CMD:
#   FR_TEST_REDIS_URL        redis://127.0.0.1:PORT/0
#   FR_TEST_KAFKA_BOOTSTRAP  127.0.0.1:PORT (a real single-node KRaft broker, deploy/local/kafka.sh)
#   FR_PYTHON                <repo>/.venv/bin/python when it exists (unless already set); kafka.sh
#                            uses it for its metadata readiness probe (confluent-kafka)
# A service whose FR_TEST_* variable the caller already set is used as is and not started.
#
# Environment:
#   FR_REDIS_PORT             use exactly this port (default: the first free port in 6390-6409)
#   FR_KAFKA_PORT             use exactly this listener port (default: the first free one of
#                             19092, 19094, ..., 19110); the controller port is listener + 1, or
#                             FR_KAFKA_CONTROLLER_PORT when both are given
#   FR_KAFKA_START_TIMEOUT, FR_KAFKA_JVM_OPTS, JAVA_HOME   passed on to kafka.sh
#   FR_RUN_DIR                parent of this run's private run dir (default <repo>/.run)
#
# Every run gets its own private run dir (mktemp -d: FR_RUN_DIR/services.XXXXXX, mode 0700):
# parallel runs in one checkout never share a pidfile, so each stops only the servers it
# started (by the pids in its own pidfiles). Services are stopped on exit, pass or fail, and
# on Ctrl-C; the run dir is removed when every stop succeeded. The script exits with CMD's
# status. Services start one after the other: Redis is up in well under a second, so starting
# it alongside Kafka (10-20 s) would save nothing worth a background job's signal handling.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if (($# == 0)); then
    echo "usage: $0 CMD [ARG...]" >&2
    exit 2
fi

log() { echo "with-services.sh: $*" >&2; }

# shellcheck source=deploy/local/lib/common.sh
source "$HERE/lib/common.sh"
session_begin services # private run dir; STOPS run on exit

# --- Redis ------------------------------------------------------------------------------
REDIS_PORT=""
# shellcheck disable=SC2317,SC2329  # run through STOPS
stop_redis() { FR_REDIS_PORT="$REDIS_PORT" bash "$HERE/redis.sh" stop; }

start_redis() {
    local ports port status
    if [[ -n ${FR_REDIS_PORT:-} ]]; then
        ports=("$FR_REDIS_PORT")
    else
        mapfile -t ports < <(seq 6390 6409)
    fi
    STOPS+=(stop_redis) # before starting: a Ctrl-C during the start still stops it
    for port in "${ports[@]}"; do
        REDIS_PORT="$port"
        status=0
        FR_REDIS_PORT="$port" bash "$HERE/redis.sh" start || status=$?
        if ((status == 0)); then
            export FR_TEST_REDIS_URL="redis://127.0.0.1:$port/0"
            log "FR_TEST_REDIS_URL=$FR_TEST_REDIS_URL"
            return 0
        fi
        ((status == 75)) || return "$status" # 75: port taken, try the next one
    done
    log "no free Redis port among: ${ports[*]}"
    return 1
}

if [[ -z ${FR_TEST_REDIS_URL:-} ]]; then
    start_redis
else
    log "using the caller's FR_TEST_REDIS_URL=$FR_TEST_REDIS_URL"
fi

# --- Kafka ------------------------------------------------------------------------------
# kafka.sh keeps its pidfile in $FR_RUN_DIR/kafka (this run's private dir), so stopping needs
# no port: it stops whatever broker this run started, by that pid, or nothing.
# shellcheck disable=SC2317,SC2329  # run through STOPS
stop_kafka() { bash "$HERE/kafka.sh" stop; }

# The broker could not bind a port that looked free (another run took it in between)?
kafka_bind_failed() {
    grep -qE 'Address already in use|BindException' "$FR_RUN_DIR/kafka/kafka.log" 2>/dev/null
}

start_kafka() {
    local ports port controller status out
    if [[ -n ${FR_KAFKA_PORT:-} ]]; then
        ports=("$FR_KAFKA_PORT")
    else
        mapfile -t ports < <(seq 19092 2 19110)
    fi
    STOPS+=(stop_kafka) # before starting: a Ctrl-C during the start still stops it
    for port in "${ports[@]}"; do
        controller=$((port + 1))
        if [[ -n ${FR_KAFKA_PORT:-} && -n ${FR_KAFKA_CONTROLLER_PORT:-} ]]; then
            controller="$FR_KAFKA_CONTROLLER_PORT"
        fi
        rm -f "$FR_RUN_DIR/kafka/kafka.log" # kafka_bind_failed reads this attempt's log only
        status=0
        out="$(FR_KAFKA_PORT="$port" FR_KAFKA_CONTROLLER_PORT="$controller" \
            bash "$HERE/kafka.sh" start)" || status=$?
        if ((status == 0)); then
            export FR_TEST_KAFKA_BOOTSTRAP="${out#FR_KAFKA_BOOTSTRAP=}"
            log "FR_TEST_KAFKA_BOOTSTRAP=$FR_TEST_KAFKA_BOOTSTRAP"
            return 0
        fi
        if ((status == 1)) && kafka_bind_failed; then
            log "port $port was taken while the broker started; trying the next one"
        elif ((status != 75)); then # 75: port taken, try the next one
            return "$status"
        fi
    done
    log "no free Kafka port among: ${ports[*]} (controller port = port + 1)"
    return 1
}

if [[ -z ${FR_TEST_KAFKA_BOOTSTRAP:-} ]]; then
    start_kafka
else
    log "using the caller's FR_TEST_KAFKA_BOOTSTRAP=$FR_TEST_KAFKA_BOOTSTRAP"
fi

# --- Run --------------------------------------------------------------------------------
status=0
"$@" || status=$?
exit "$status"
