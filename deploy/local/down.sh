#!/usr/bin/env bash
# Stop the Redis and Kafka that deploy/local/up.sh started, by the pids in their pidfiles
# (never by process name). Safe to run when nothing is running.
#
#   deploy/local/down.sh
#
# Environment:
#   FR_LOCAL_RUN_DIR   the run dir up.sh used (default <repo>/.run/local)
#
# Every Redis with a pidfile in the run dir is stopped, whichever port it was started on.
# Broker data stays in the run dir (up.sh starts fresh unless FR_KAFKA_KEEP_DATA=1).
# Exit status: 0 when everything is stopped; 1 when a service did not stop cleanly.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../.." && pwd)"
RUN_DIR="${FR_LOCAL_RUN_DIR:-$REPO_ROOT/.run/local}"

log() { echo "down.sh: $*" >&2; }

if [[ ! -d $RUN_DIR ]]; then
    log "nothing to stop (no $RUN_DIR)"
    exit 0
fi
export FR_RUN_DIR="$RUN_DIR"

exec 7>"$RUN_DIR/.session.lock"
flock -w 300 7 || { log "another up.sh/down.sh holds $RUN_DIR/.session.lock"; exit 1; }

ok=1
bash "$HERE/kafka.sh" stop 7>&- || ok=0
for f in "$RUN_DIR"/redis-*.pid; do
    [[ -e $f ]] || continue
    port="${f##*/redis-}"
    port="${port%.pid}"
    [[ $port =~ ^[0-9]+$ ]] || continue
    FR_REDIS_PORT="$port" bash "$HERE/redis.sh" stop 7>&- || ok=0
done
rm -f "$RUN_DIR/env"

if ((ok)); then
    log "stopped (run dir $RUN_DIR)"
else
    log "a service did not stop cleanly; see the logs in $RUN_DIR"
    exit 1
fi
