#!/usr/bin/env bash
# deploy/local/redis-cluster.sh start|stop|status|failover [PORT]|kill-master [PORT]|revive PORT
#
# A Redis Cluster of three masters with one replica each on loopback, for the cluster tests.
# Every node is a deploy/local/redis.sh server with FR_REDIS_CLUSTER=1 (no persistence,
# cluster-node-timeout 2 s), joined by `redis-cli --cluster create --cluster-replicas 1`.
#
#   start        six nodes on a block of free ports, the cluster created, and waited for until
#                every node says cluster_state:ok with all 16384 slots and every replica's link
#                to its master is up. Prints FR_REDIS_CLUSTER_URL=redis+cluster://127.0.0.1:A,...
#                (every node, in the form FR_REDIS_URL takes for a cluster) on stdout.
#   stop         stop the six nodes, by the pids in their pidfiles.
#   failover [PORT]     a planned failover: CLUSTER FAILOVER on the replica of master PORT
#                (default: the master of slot 0), which takes over once it has every write
#                the master acknowledged; waits until the roles swapped and the cluster is ok.
#                Prints the new master's port.
#   kill-master [PORT]  a crash: SIGKILL master PORT; waits until the cluster promoted its
#                replica and is ok again. Prints the new master's port. (Replication is
#                asynchronous: writes the old master acknowledged in its last moment may be
#                lost, unless the client waited for them with WAIT.)
#   revive PORT  restart a killed node; it rejoins as a replica. Waits until its link is up.
#   status       `cluster nodes` as one node sees it; exit 3 unless every node runs.
#
# Environment:
#   FR_RUN_DIR               run dir (default <repo>/.run): pid, log and nodes-PORT.conf files,
#                            the ports in redis-cluster.env
#   FR_REDIS_CLUSTER_PORT    first of six consecutive ports (cluster bus: port + 10000);
#                            default: the first free block of 7000, 7010, ..., 7090
#   FR_REDIS_CLUSTER_TIMEOUT seconds to wait for the cluster to be ok (default 60)
#   FR_REDIS_NODE_TIMEOUT    passed on to redis.sh (cluster-node-timeout in ms, default 2000)
#
# Exit status: 0 ok; 1 failure; 2 usage; 3 `status` found a node stopped; 75 the pinned
# FR_REDIS_CLUSTER_PORT block is taken.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../.." && pwd)"
RUN_DIR="${FR_RUN_DIR:-$REPO_ROOT/.run}"
LAYOUT="$RUN_DIR/redis-cluster.env"
TIMEOUT="${FR_REDIS_CLUSTER_TIMEOUT:-60}"
SLOTS=16384

log() { echo "redis-cluster.sh: $*" >&2; }
die() { log "$*"; exit 1; }
# shellcheck source=deploy/local/lib/common.sh
source "$HERE/lib/common.sh" # free_block

export FR_RUN_DIR="$RUN_DIR"
PORTS=()

load_layout() {
    [[ -f $LAYOUT ]] || die "no cluster in $RUN_DIR (no redis-cluster.env); run start first"
    # shellcheck source=/dev/null
    source "$LAYOUT"
    read -ra PORTS <<<"$REDIS_CLUSTER_PORTS"
}

node() { # PORT CMD: redis.sh for one node
    FR_REDIS_CLUSTER=1 FR_REDIS_PORT="$1" bash "$HERE/redis.sh" "$2"
}

cli() { # PORT ARGS...: one command to one node, raw output
    local port=$1
    shift
    redis-cli -h 127.0.0.1 -p "$port" "$@"
}

running() { node "$1" status >/dev/null 2>&1; }

# "PORT ROLE MASTER_PORT" per live node, from `cluster nodes` as node $1 sees it (ROLE is
# master, replica or failed; MASTER_PORT is "-" for a master).
roles() {
    local id addr flags master rest
    declare -A port_of=()
    local lines
    lines="$(cli "$1" cluster nodes)" || return 1
    while read -r id addr flags master rest; do
        [[ -n $id ]] || continue
        addr="${addr%@*}"
        port_of[$id]="${addr##*:}"
    done <<<"$lines"
    while read -r id addr flags master rest; do
        [[ -n $id ]] || continue
        addr="${addr%@*}"
        if [[ $flags =~ (^|,)(fail|noaddr)(,|$) ]]; then # not `fail?` (only suspected)
            echo "${addr##*:} failed -"
        elif [[ $flags == *master* ]]; then
            echo "${addr##*:} master -"
        else
            echo "${addr##*:} replica ${port_of[$master]:-?}"
        fi
    done <<<"$lines"
}

info_field() { # PORT SECTION FIELD
    cli "$1" info "$2" | tr -d '\r' | sed -n "s/^$3://p"
}

# Every live node sees the cluster ok with all slots served and the same shape (three
# masters, every other live node a replica: gossip has settled), and every live replica has
# its link to its master up (so a failover has a copy to promote).
healthy() {
    local port live=0 view
    for port in "${PORTS[@]}"; do running "$port" && live=$((live + 1)); done
    for port in "${PORTS[@]}"; do
        running "$port" || continue
        view="$(roles "$port")" || return 1
        [[ "$(grep -c ' master ' <<<"$view")" == 3 ]] || return 1
        [[ "$(grep -c ' replica ' <<<"$view")" == $((live - 3)) ]] || return 1
        [[ "$(cli "$port" cluster info | tr -d '\r' | grep -cE "^(cluster_state:ok|cluster_slots_ok:$SLOTS)$")" == 2 ]] ||
            return 1
        if [[ "$(info_field "$port" replication role)" == slave ]]; then
            [[ "$(info_field "$port" replication master_link_status)" == up ]] || return 1
        fi
    done
}

wait_until() { # WHAT CMD...
    local what=$1 deadline=$((SECONDS + TIMEOUT))
    shift
    until "$@"; do
        ((SECONDS < deadline)) || die "timed out after ${TIMEOUT}s waiting for $what"
        sleep 0.2
    done
}

a_live_port() {
    local port
    for port in "${PORTS[@]}"; do
        if running "$port"; then
            echo "$port"
            return 0
        fi
    done
    die "no node of the cluster runs"
}

master_of_slot0() { # `cluster nodes`: a master's slot ranges follow its 8th field
    cli "$(a_live_port)" cluster nodes | tr -d '\r' |
        awk '$3 ~ /master/ && $3 !~ /(^|,)fail(,|$)/ {
                 for (i = 9; i <= NF; i++) if ($i ~ /^0(-|$)/) { sub(/@.*/, "", $2); sub(/.*:/, "", $2); print $2 }
             }'
}

replica_of() { # MASTER_PORT -> the port of a live replica of it
    local port role master
    while read -r port role master; do
        if [[ $role == replica && $master == "$1" ]] && running "$port"; then
            echo "$port"
            return 0
        fi
    done < <(roles "$(a_live_port)")
    die "master $1 has no live replica"
}

is_master() { [[ "$(info_field "$1" replication role)" == master ]]; }

check_master() { # PORT: must be a live master of this cluster
    local port=$1
    [[ " ${PORTS[*]} " == *" $port "* ]] || die "$port is not a node of this cluster (${PORTS[*]})"
    if ! running "$port" || ! is_master "$port"; then die "node $port is not a live master"; fi
}

# --- commands ---------------------------------------------------------------------------
cmd_start() {
    local first=7000 blocks=10 k status ports port t0=$SECONDS
    mkdir -p "$RUN_DIR"
    if [[ -f $LAYOUT ]]; then
        load_layout
        if healthy 2>/dev/null && running "${PORTS[0]}"; then
            log "already running"
            print_settings
            return 0
        fi
        cmd_stop
    fi
    if [[ -n ${FR_REDIS_CLUSTER_PORT:-} ]]; then
        first=$FR_REDIS_CLUSTER_PORT
        blocks=1
    fi
    for ((k = 0; k < blocks; k++)); do
        # Six client ports and their cluster bus ports (+10000).
        ports="$(free_block $((first + 10 * k)) 10 1 0 1 2 3 4 5 10000 10001 10002 10003 10004 10005)" ||
            continue
        mapfile -t PORTS < <(head -n 6 <<<"$ports")
        printf 'REDIS_CLUSTER_PORTS=%q\n' "${PORTS[*]}" >"$LAYOUT"
        status=0
        for port in "${PORTS[@]}"; do
            rm -f "$RUN_DIR/nodes-$port.conf"
            node "$port" start || { status=$?; break; }
        done
        if ((status == 0)); then
            create
            log "3 masters + 3 replicas ready in $((SECONDS - t0))s (ports ${PORTS[*]})"
            print_settings
            return 0
        fi
        cmd_stop
        ((status == 75)) || die "a node failed to start (logs in $RUN_DIR/redis-*.log)"
        log "a port of block $((first + 10 * k)) was taken while starting; trying the next block"
    done
    log "no free block of six ports (and their bus ports) from $first (step 10, $blocks blocks)"
    exit 75
}

create() {
    local addrs=() port
    for port in "${PORTS[@]}"; do addrs+=("127.0.0.1:$port"); done
    # All six on one host: redis-cli warns that replicas share their master's host; expected.
    redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes \
        >"$RUN_DIR/redis-cluster-create.log" 2>&1 ||
        { cat "$RUN_DIR/redis-cluster-create.log" >&2; die "redis-cli --cluster create failed"; }
    wait_until "cluster_state:ok on every node, every replica linked" healthy
}

print_settings() {
    local addrs=() port
    for port in "${PORTS[@]}"; do addrs+=("127.0.0.1:$port"); done
    echo "FR_REDIS_CLUSTER_URL=redis+cluster://$(IFS=,; echo "${addrs[*]}")"
}

cmd_stop() {
    local port ok=0
    [[ -f $LAYOUT ]] || { log "not running (no redis-cluster.env)"; return 0; }
    load_layout
    for port in "${PORTS[@]}"; do node "$port" stop || ok=1; done
    rm -f "$LAYOUT"
    return "$ok"
}

cmd_failover() {
    load_layout
    local master=${1:-$(master_of_slot0)} replica t0=$SECONDS
    check_master "$master"
    replica="$(replica_of "$master")"
    log "failover: replica $replica takes over from master $master"
    [[ "$(cli "$replica" cluster failover | tr -d '\r')" == OK ]] ||
        die "CLUSTER FAILOVER refused by $replica"
    wait_until "$replica to be master" is_master "$replica"
    wait_until "the cluster to be ok after the failover" healthy
    log "failover done in $((SECONDS - t0))s: $replica is master, $master its replica"
    echo "$replica"
}

cmd_kill_master() {
    load_layout
    local master=${1:-$(master_of_slot0)} replica t0=$SECONDS
    check_master "$master"
    replica="$(replica_of "$master")"
    node "$master" kill
    wait_until "$replica to be promoted" is_master "$replica"
    wait_until "the cluster to be ok after the crash" healthy
    log "master $master killed; $replica promoted in $((SECONDS - t0))s"
    echo "$replica"
}

cmd_revive() {
    load_layout
    local port=${1:-}
    [[ " ${PORTS[*]} " == *" $port "* ]] || die "usage: $0 revive PORT (one of ${PORTS[*]})"
    node "$port" start
    wait_until "$port to rejoin with its link up" healthy
    log "node $port rejoined as $(info_field "$port" replication role)"
}

cmd_status() {
    local port ok=0
    load_layout
    for port in "${PORTS[@]}"; do running "$port" || { echo "node $port: stopped"; ok=3; }; done
    roles "$(a_live_port)"
    return "$ok"
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    failover) cmd_failover "${2:-}" ;;
    kill-master) cmd_kill_master "${2:-}" ;;
    revive) cmd_revive "${2:-}" ;;
    status) cmd_status ;;
    *)
        echo "usage: $0 start|stop|status|failover [PORT]|kill-master [PORT]|revive PORT" >&2
        exit 2
        ;;
esac
