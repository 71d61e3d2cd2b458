#!/usr/bin/env bash
# deploy/local/kafka-cluster.sh start|stop|status|kill N|revive N
#
# A three-node Apache Kafka cluster on loopback for the cluster tests. Every node is a KRaft
# broker + controller started by deploy/local/kafka.sh (FR_KAFKA_NODE_ID=1..3); every topic,
# the internal ones included, has replication factor 3 and min.insync.replicas 2, so a write
# acknowledged with acks=all survives the loss of any one node and the cluster keeps serving.
#
#   start     pick six free ports, start the three nodes at once with one cluster id (a KRaft
#             quorum forms only when a majority is up) and wait until the metadata lists all
#             three brokers; prints FR_KAFKA_CLUSTER_BOOTSTRAP=127.0.0.1:A,127.0.0.1:B,127.0.0.1:C
#             on stdout (everything else goes to stderr). Already running -> prints the line.
#   stop      stop the three nodes at once (TERM, KILL after 30 s), by their pidfiles.
#   kill N    SIGKILL node N (1-3): a crash; its data stays.
#   revive N  start node N again, on its ports, with its data; waits until the metadata lists
#             all three brokers again.
#   status    one line per node; exit 3 unless all three run.
#
# Environment:
#   FR_RUN_DIR               run dir (default <repo>/.run): node state in kafka-1..3, the ports
#                            and the cluster id in kafka-cluster.env
#   FR_KAFKA_CLUSTER_PORT    first of six consecutive ports (listeners +0..+2, controllers
#                            +3..+5); default: the first free block of 19200, 19210, ..., 19290
#   FR_KAFKA_CLUSTER_HEAP    heap per node (default "-Xms128m -Xmx384m")
#   FR_KAFKA_START_TIMEOUT   seconds each node may take to be ready (default 180: three JVMs
#                            starting at once on two cores)
#   FR_KAFKA_JVM_OPTS, FR_KAFKA_HOME, FR_PYTHON, JAVA_HOME   passed on to kafka.sh
#
# Exit status: 0 ok; 1 failure; 2 usage; 3 `status` found a node stopped; 75 the pinned
# FR_KAFKA_CLUSTER_PORT block is taken.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../.." && pwd)"
RUN_DIR="${FR_RUN_DIR:-$REPO_ROOT/.run}"
LAYOUT="$RUN_DIR/kafka-cluster.env"
NODES=(1 2 3)

log() { echo "kafka-cluster.sh: $*" >&2; }
die() { log "$*"; exit 1; }
# shellcheck source=deploy/local/lib/common.sh
source "$HERE/lib/common.sh" # free_block

export FR_RUN_DIR="$RUN_DIR" FR_KAFKA_START_TIMEOUT="${FR_KAFKA_START_TIMEOUT:-180}"

# --- layout: ports and cluster id, written by start, read by kill/revive/stop ---------------
LISTENERS=()
CONTROLLERS=()
CLUSTER_ID=""

load_layout() {
    [[ -f $LAYOUT ]] || die "no cluster in $RUN_DIR (no kafka-cluster.env); run start first"
    # shellcheck source=/dev/null
    source "$LAYOUT"
    read -ra LISTENERS <<<"$KAFKA_CLUSTER_LISTENERS"
    read -ra CONTROLLERS <<<"$KAFKA_CLUSTER_CONTROLLERS"
    CLUSTER_ID="$KAFKA_CLUSTER_ID"
}

save_layout() {
    mkdir -p "$RUN_DIR"
    {
        printf 'KAFKA_CLUSTER_LISTENERS=%q\n' "${LISTENERS[*]}"
        printf 'KAFKA_CLUSTER_CONTROLLERS=%q\n' "${CONTROLLERS[*]}"
        printf 'KAFKA_CLUSTER_ID=%q\n' "$CLUSTER_ID"
    } >"$LAYOUT"
}

bootstrap() {
    local n out=()
    for n in "${NODES[@]}"; do out+=("127.0.0.1:${LISTENERS[n - 1]}"); done
    (IFS=,; echo "${out[*]}")
}

voters() {
    local n out=()
    for n in "${NODES[@]}"; do out+=("$n@127.0.0.1:${CONTROLLERS[n - 1]}"); done
    (IFS=,; echo "${out[*]}")
}

# kafka.sh for node N: CMD [VAR=VALUE...] (extra environment for that call)
node() {
    local n=$1 cmd=$2
    shift 2
    env FR_KAFKA_NODE_ID="$n" FR_KAFKA_PORT="${LISTENERS[n - 1]}" \
        FR_KAFKA_CONTROLLER_PORT="${CONTROLLERS[n - 1]}" FR_KAFKA_VOTERS="$(voters)" \
        FR_KAFKA_CLUSTER_ID="$CLUSTER_ID" FR_KAFKA_REPLICATION=3 FR_KAFKA_MIN_ISR=2 \
        FR_KAFKA_HEAP="${FR_KAFKA_CLUSTER_HEAP:--Xms128m -Xmx384m}" "$@" \
        bash "$HERE/kafka.sh" "$cmd"
}

node_number() {
    [[ ${1:-} =~ ^[1-3]$ ]] || { echo "usage: $0 kill|revive 1|2|3" >&2; exit 2; }
}

# Every broker registered (a restarted node is back once the controller lists it again).
wait_brokers() {
    local py=${FR_PYTHON:-python3} deadline=$((SECONDS + FR_KAFKA_START_TIMEOUT))
    if ! "$py" -c 'import confluent_kafka' 2>/dev/null; then
        log "no confluent_kafka in $py: not checking that all brokers registered"
        return 0
    fi
    until "$py" - "$(bootstrap)" "${#NODES[@]}" <<'EOF' 2>/dev/null; do
import sys
from confluent_kafka.admin import AdminClient
md = AdminClient({"bootstrap.servers": sys.argv[1]}).list_topics(timeout=5)
sys.exit(0 if len(md.brokers) == int(sys.argv[2]) else 1)
EOF
        ((SECONDS < deadline)) || die "the metadata does not list ${#NODES[@]} brokers after ${FR_KAFKA_START_TIMEOUT}s"
        sleep 0.5
    done
}

all_running() {
    local n
    [[ -f $LAYOUT ]] || return 1
    load_layout
    for n in "${NODES[@]}"; do
        node "$n" status >/dev/null 2>&1 || return 1
    done
}

# Start the given nodes at once; 0 if all came up, else the worst status (75: a port taken).
start_nodes() {
    local n pids=() worst=0 status
    for n in "$@"; do
        node "$n" start >/dev/null &
        pids+=($!)
    done
    for n in "${!pids[@]}"; do
        status=0
        wait "${pids[n]}" || status=$?
        if ((status == 1)) && grep -qE 'Address already in use|BindException' \
            "$RUN_DIR/kafka-$((n + 1))/kafka.log" 2>/dev/null; then
            status=75 # the port looked free but another process bound it first
        fi
        ((status == 0 || worst == 75)) || worst=$status
    done
    return "$worst"
}

stop_nodes() {
    local n pids=() ok=0
    for n in "${NODES[@]}"; do
        FR_KAFKA_NODE_ID="$n" bash "$HERE/kafka.sh" stop &
        pids+=($!)
    done
    for n in "${pids[@]}"; do wait "$n" || ok=1; done
    return "$ok"
}

# --- commands ---------------------------------------------------------------------------
cmd_start() {
    if all_running; then
        log "already running"
        echo "FR_KAFKA_CLUSTER_BOOTSTRAP=$(bootstrap)"
        return 0
    fi
    stop_nodes 2>/dev/null || true # leftovers of a half-started cluster in this run dir
    local first=19200 blocks=10 k status ports t0=$SECONDS
    if [[ -n ${FR_KAFKA_CLUSTER_PORT:-} ]]; then
        first=$FR_KAFKA_CLUSTER_PORT
        blocks=1
    fi
    CLUSTER_ID="$(bash "$HERE/kafka.sh" cluster-id)"
    for ((k = 0; k < blocks; k++)); do
        status=0
        ports="$(free_block $((first + 10 * k)) 10 1 0 1 2 3 4 5)" || status=$?
        if ((status == 75)); then continue; fi
        mapfile -t ports <<<"$ports"
        LISTENERS=("${ports[@]:0:3}")
        CONTROLLERS=("${ports[@]:3:3}")
        save_layout
        log "starting 3 nodes: listeners ${LISTENERS[*]}, controllers ${CONTROLLERS[*]}"
        status=0
        start_nodes "${NODES[@]}" || status=$?
        if ((status == 0)); then
            wait_brokers
            log "3 brokers ready in $((SECONDS - t0))s (replication 3, min.insync.replicas 2)"
            echo "FR_KAFKA_CLUSTER_BOOTSTRAP=$(bootstrap)"
            return 0
        fi
        stop_nodes || true
        ((status == 75)) || die "a node failed to start (logs in $RUN_DIR/kafka-*/kafka.log)"
        log "a port of block $((first + 10 * k)) was taken while starting; trying the next block"
    done
    rm -f "$LAYOUT"
    log "no free block of six ports from $first (step 10, $blocks blocks)"
    exit 75
}

cmd_stop() {
    stop_nodes
    rm -f "$LAYOUT"
}

cmd_kill() {
    node_number "${1:-}"
    load_layout
    node "$1" kill
}

cmd_revive() {
    node_number "${1:-}"
    load_layout
    local t0=$SECONDS
    node "$1" start FR_KAFKA_KEEP_DATA=1 >/dev/null
    wait_brokers
    log "node $1 back in $((SECONDS - t0))s"
}

cmd_status() {
    local n ok=0
    load_layout
    for n in "${NODES[@]}"; do
        node "$n" status || ok=3
    done
    return "$ok"
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    kill) cmd_kill "${2:-}" ;;
    revive) cmd_revive "${2:-}" ;;
    status) cmd_status ;;
    *)
        echo "usage: $0 start|stop|status|kill N|revive N" >&2
        exit 2
        ;;
esac
