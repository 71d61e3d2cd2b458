#!/usr/bin/env bash
# Run a command with a Redis Cluster and a three-broker Kafka cluster, then stop them.
#
#   deploy/local/with-cluster.sh CMD [ARG...]
#
# Starts deploy/local/redis-cluster.sh (3 masters + 3 replicas) and deploy/local/kafka-cluster.sh
# (3 KRaft nodes, replication factor 3, min.insync.replicas 2) on free loopback ports, in a
# private run dir, and exports to CMD:
#   FR_TEST_REDIS_CLUSTER_URL        redis+cluster://127.0.0.1:PORT,... (all six nodes as seeds,
#                                    in the form FR_REDIS_URL takes)
#   FR_TEST_KAFKA_CLUSTER_BOOTSTRAP  127.0.0.1:A,127.0.0.1:B,127.0.0.1:C
#   FR_TEST_CLUSTER_RUN_DIR          the run dir: CMD may crash and revive nodes with
#                                    FR_RUN_DIR=$FR_TEST_CLUSTER_RUN_DIR deploy/local/kafka-cluster.sh
#                                    kill|revive N and deploy/local/redis-cluster.sh
#                                    failover|kill-master|revive
#   FR_PYTHON                        <repo>/.venv/bin/python when it exists (unless already set)
#
# Environment: FR_RUN_DIR (parent of the private run dir, default <repo>/.run), and what
# redis-cluster.sh and kafka-cluster.sh take (FR_REDIS_CLUSTER_PORT, FR_KAFKA_CLUSTER_PORT,
# FR_KAFKA_CLUSTER_HEAP, FR_KAFKA_START_TIMEOUT, ...).
#
# Both clusters are stopped on exit, pass or fail, and on Ctrl-C, by the pids in this run's
# pidfiles; the run dir is removed when every stop succeeded. Exits with CMD's status.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if (($# == 0)); then
    echo "usage: $0 CMD [ARG...]" >&2
    exit 2
fi

log() { echo "with-cluster.sh: $*" >&2; }

# shellcheck source=deploy/local/lib/common.sh
source "$HERE/lib/common.sh"
session_begin cluster # private run dir; STOPS run on exit
export FR_TEST_CLUSTER_RUN_DIR="$FR_RUN_DIR"

# shellcheck disable=SC2317,SC2329  # run through STOPS
stop_redis() { bash "$HERE/redis-cluster.sh" stop; }
# shellcheck disable=SC2317,SC2329  # run through STOPS
stop_kafka() { bash "$HERE/kafka-cluster.sh" stop; }

# Each line NAME=VALUE on stdin becomes FR_TEST_NAME (without its FR_ prefix doubled).
export_as_test() {
    local line
    while IFS= read -r line; do
        [[ $line == FR_*=* ]] || continue
        export "FR_TEST_${line#FR_}"
        log "FR_TEST_${line#FR_}"
    done
}

t0=$SECONDS
STOPS+=(stop_redis) # before starting: a Ctrl-C during the start still stops it
export_as_test < <(bash "$HERE/redis-cluster.sh" start)
[[ -n ${FR_TEST_REDIS_CLUSTER_URL:-} ]] || { log "the Redis Cluster did not start"; exit 1; }
STOPS+=(stop_kafka)
export_as_test < <(bash "$HERE/kafka-cluster.sh" start)
[[ -n ${FR_TEST_KAFKA_CLUSTER_BOOTSTRAP:-} ]] || { log "the Kafka cluster did not start"; exit 1; }
log "both clusters up in $((SECONDS - t0))s (run dir $FR_RUN_DIR)"

status=0
"$@" || status=$?
exit "$status"
