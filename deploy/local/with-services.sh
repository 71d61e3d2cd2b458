#!/usr/bin/env bash
# Run a command with the services the tests need, then stop what this script started.
#
#   deploy/local/with-services.sh CMD [ARG...]
#
# Exports to CMD:
#   FR_TEST_REDIS_URL   redis://127.0.0.1:PORT/0
# A service whose FR_TEST_* variable the caller already set is used as is and not started.
#
# Environment:
#   FR_REDIS_PORT   use exactly this port (default: the first free port in 6390-6409)
#   FR_RUN_DIR      parent of this run's private run dir (default <repo>/.run)
#
# Every run gets its own run dir (services.<pid>): parallel runs in one checkout never share a
# pidfile, so each stops only the servers it started. Services are stopped on exit, pass or
# fail, and on Ctrl-C; the script exits with CMD's status.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../.." && pwd)"

if (($# == 0)); then
    echo "usage: $0 CMD [ARG...]" >&2
    exit 2
fi

log() { echo "with-services.sh: $*" >&2; }

export FR_RUN_DIR="${FR_RUN_DIR:-$REPO_ROOT/.run}/services.$$"
STOPS=() # functions stopping what was started, run in reverse order

# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    local status=$? ok=1 i
    trap - EXIT INT TERM
    for ((i = ${#STOPS[@]} - 1; i >= 0; i--)); do
        "${STOPS[i]}" || ok=0
    done
    if ((ok)); then
        rm -rf "$FR_RUN_DIR"
    else
        log "a service did not stop cleanly; see $FR_RUN_DIR"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- Redis ------------------------------------------------------------------------------
REDIS_PORT=""
# shellcheck disable=SC2317  # run through STOPS
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
# To be added with deploy/local/kafka.sh: unless the caller set its FR_TEST_* variable, start
# it like Redis above, append its stop function to STOPS, and export its FR_TEST_* address.

# --- Run --------------------------------------------------------------------------------
status=0
"$@" || status=$?
exit "$status"
