#!/usr/bin/env bash
# deploy/local/kafka.sh start|stop|kill|status|restart|cluster-id
#
# A real Apache Kafka broker (KRaft: broker + controller in one JVM) on loopback, run straight
# from Apache Kafka's Maven Central artifacts (no Docker, no tarball download). By default a
# single-node cluster; with FR_KAFKA_NODE_ID / FR_KAFKA_VOTERS / FR_KAFKA_CLUSTER_ID it is one
# node of a multi-node quorum (deploy/local/kafka-cluster.sh starts three that way).
#
#   start   resolve the class path once (deploy/local/kafka/pom.xml -> $FR_KAFKA_HOME/lib),
#           write server.properties, format storage, start the broker in the background and
#           wait until it serves requests; prints FR_KAFKA_BOOTSTRAP=127.0.0.1:<port> on stdout
#           (all other output goes to stderr, so `eval "$(deploy/local/kafka.sh start)"` works).
#           Already running -> says so, prints the same line, exits 0.
#   stop    TERM the pid in the pidfile (never by process name), KILL after 30 s, remove pidfile.
#   kill    SIGKILL the pid in the pidfile (a crash, for failover tests); the data stays.
#   status  "running pid=... bootstrap=..." (exit 0) or "stopped" (exit 3).
#   cluster-id  print a fresh cluster id (for FR_KAFKA_CLUSTER_ID, shared by a cluster's nodes).
#
# Environment:
#   FR_RUN_DIR                 run dir (default <repo>/.run); broker state in $FR_RUN_DIR/kafka
#   FR_KAFKA_HOME              class-path cache (default <repo>/.run/kafka-<version>), reused
#   FR_KAFKA_PORT              PLAINTEXT listener port (default 9092)
#   FR_KAFKA_CONTROLLER_PORT   CONTROLLER listener port (default 9093)
#   FR_KAFKA_START_TIMEOUT     seconds to wait for readiness (default 90)
#   FR_KAFKA_KEEP_DATA=1       keep topics/offsets from the previous run (default: fresh data)
#   FR_KAFKA_JVM_OPTS          extra JVM options
#   FR_KAFKA_HEAP              heap options (default "-Xms256m -Xmx512m")
# One node of a multi-node cluster (all default to the single-node broker):
#   FR_KAFKA_NODE_ID           node.id; when set, state lives in $FR_RUN_DIR/kafka-<id>
#   FR_KAFKA_VOTERS            controller.quorum.voters (default <id>@127.0.0.1:<controller port>)
#   FR_KAFKA_CLUSTER_ID        the cluster id every node formats its storage with (default random)
#   FR_KAFKA_REPLICATION       default.replication.factor and the internal topics' (default 1)
#   FR_KAFKA_MIN_ISR           min.insync.replicas, also of the internal topics (default 1)
#   FR_PYTHON                  python used for the metadata readiness probe (default python3);
#                              the probe runs only if it can `import confluent_kafka`
#   JAVA_HOME                  if set, $JAVA_HOME/bin/java is used (Java 17+ required)
#
# Exit status: 0 ok; 1 failure (start prints the broker log tail); 2 usage;
# 3 `status` found it stopped; 75 `start` found a port taken (callers may retry other ports).
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPT_DIR/../.." && pwd)
POM="$SCRIPT_DIR/kafka/pom.xml"

# The single source of the pinned version is the pom.
KAFKA_VERSION=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$POM" | head -n1)
DEP_PLUGIN_VERSION=$(sed -n 's:.*<dependency-plugin.version>\(.*\)</dependency-plugin.version>.*:\1:p' "$POM" | head -n1)
[[ -n "$KAFKA_VERSION" && -n "$DEP_PLUGIN_VERSION" ]] ||
  { echo "kafka.sh: no <kafka.version>/<dependency-plugin.version> in $POM" >&2; exit 2; }

RUN_DIR=${FR_RUN_DIR:-$REPO_DIR/.run}
KAFKA_HOME_DIR=${FR_KAFKA_HOME:-$REPO_DIR/.run/kafka-$KAFKA_VERSION}
LIB_DIR="$KAFKA_HOME_DIR/lib"
LIB_MARKER="$LIB_DIR/.fr-complete"
PORT=${FR_KAFKA_PORT:-9092}
CONTROLLER_PORT=${FR_KAFKA_CONTROLLER_PORT:-9093}
HOST=127.0.0.1
START_TIMEOUT=${FR_KAFKA_START_TIMEOUT:-90}
STOP_TIMEOUT=30

NODE_ID=${FR_KAFKA_NODE_ID:-1}
VOTERS=${FR_KAFKA_VOTERS:-$NODE_ID@$HOST:$CONTROLLER_PORT}
REPLICATION=${FR_KAFKA_REPLICATION:-1}
MIN_ISR=${FR_KAFKA_MIN_ISR:-1}
[[ "$NODE_ID$REPLICATION$MIN_ISR" =~ ^[0-9]+$ ]] ||
  { echo "kafka.sh: FR_KAFKA_NODE_ID, FR_KAFKA_REPLICATION and FR_KAFKA_MIN_ISR are numbers" >&2; exit 2; }

STATE_DIR="$RUN_DIR/kafka${FR_KAFKA_NODE_ID:+-$FR_KAFKA_NODE_ID}"
PIDFILE="$STATE_DIR/kafka.pid"
BOOTFILE="$STATE_DIR/bootstrap"
LOGFILE="$STATE_DIR/kafka.log"
PROPS="$STATE_DIR/server.properties"
LOG4J="$STATE_DIR/log4j2.properties"
DATA_DIR="$STATE_DIR/data"
TMP_DIR="$STATE_DIR/tmp"

if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then JAVA="$JAVA_HOME/bin/java"; else JAVA=java; fi

log() { echo "kafka.sh: $*" >&2; }
# shellcheck source=deploy/local/lib/common.sh
source "$SCRIPT_DIR/lib/common.sh" # port_open
die() { log "$*"; exit 1; }

# --- process identity --------------------------------------------------------------------
# A pid counts as "our broker" only if it is alive and its command line is kafka.Kafka with
# this run dir's server.properties (guards against a recycled pid; never a lookup by name).
is_our_broker() {
  local pid=$1 cmd
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  alive "$pid" || return 1
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ "$cmd" == *" kafka.Kafka $PROPS"* ]]
}

# Alive and not a zombie (an orphaned JVM that exited may linger unreaped under pid 1).
alive() {
  local st
  kill -0 "$1" 2>/dev/null || return 1
  st=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ "$st" != Z && "$st" != X ]]
}

read_pid() { if [[ -f "$PIDFILE" ]]; then tr -dc '0-9' <"$PIDFILE"; fi; }


# --- class path ----------------------------------------------------------------------------
lib_complete() {
  [[ -f "$LIB_MARKER" ]] || return 1
  local want have jar
  want=$(sha256sum "$POM" | cut -d' ' -f1)
  have=$(head -n1 "$LIB_MARKER")
  [[ "$want" == "$have" ]] || return 1
  while IFS= read -r jar; do
    [[ -s "$LIB_DIR/$jar" ]] || return 1
  done < <(tail -n +2 "$LIB_MARKER")
  [[ -s "$LIB_DIR/kafka_2.13-$KAFKA_VERSION.jar" ]]
}

ensure_lib() {
  lib_complete && return 0
  mkdir -p "$KAFKA_HOME_DIR"
  exec 8>"$KAFKA_HOME_DIR/.resolve.lock"
  flock -w 600 8 || die "timed out waiting for another resolution of $LIB_DIR"
  if lib_complete; then exec 8>&-; return 0; fi
  command -v mvn >/dev/null || die "mvn not found (needed once to resolve Kafka $KAFKA_VERSION)"
  log "resolving Kafka $KAFKA_VERSION runtime from Maven into $LIB_DIR (once)"
  local tmp="$KAFKA_HOME_DIR/lib.partial"
  rm -rf "$tmp"
  # Fully qualified, pinned goal: no plugin-prefix lookup, so a later re-resolution works
  # offline from the local Maven repo (~/.m2 unless -Dmaven.repo.local is in MAVEN_OPTS).
  if ! mvn -q -B -Dstyle.color=never -f "$POM" \
        "org.apache.maven.plugins:maven-dependency-plugin:$DEP_PLUGIN_VERSION:copy-dependencies" \
        -DincludeScope=runtime -DoutputDirectory="$tmp" -DoverWriteIfNewer=true \
        >"$KAFKA_HOME_DIR/resolve.log" 2>&1 9>&- 8>&-; then
    rm -rf "$tmp"
    sed 's/\x1b\[[0-9;]*m//g' "$KAFKA_HOME_DIR/resolve.log" | tail -n 40 >&2
    die "Maven resolution failed (full output: $KAFKA_HOME_DIR/resolve.log)"
  fi
  [[ -s "$tmp/kafka_2.13-$KAFKA_VERSION.jar" ]] || die "resolution did not produce kafka_2.13-$KAFKA_VERSION.jar"
  { sha256sum "$POM" | cut -d' ' -f1; (cd "$tmp" && ls -1 -- *.jar); } >"$tmp/.fr-complete"
  rm -rf "$LIB_DIR"
  mv "$tmp" "$LIB_DIR"
  exec 8>&-
  log "lib ready: $(($(wc -l <"$LIB_MARKER") - 1)) jars, $(du -sh "$LIB_DIR" | cut -f1)"
}

# --- config --------------------------------------------------------------------------------
write_config() {
  mkdir -p "$STATE_DIR" "$DATA_DIR" "$TMP_DIR"
  cat >"$PROPS" <<EOF
# Written by deploy/local/kafka.sh on each start: a KRaft broker + controller on loopback.
process.roles=broker,controller
node.id=$NODE_ID
controller.quorum.voters=$VOTERS
listeners=PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$HOST:$PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DATA_DIR
num.partitions=1
auto.create.topics.enable=true
default.replication.factor=$REPLICATION
min.insync.replicas=$MIN_ISR
offsets.topic.replication.factor=$REPLICATION
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=$REPLICATION
transaction.state.log.min.isr=$MIN_ISR
share.coordinator.state.topic.replication.factor=$REPLICATION
share.coordinator.state.topic.min.isr=$MIN_ISR
group.initial.rebalance.delay.ms=0
EOF
  cat >"$LOG4J" <<'EOF'
# Written by deploy/local/kafka.sh: WARN everywhere, except the line that marks readiness.
status = warn
shutdownHook = disable
name = fr-local-kafka
appender.stdout.type = Console
appender.stdout.name = STDOUT
appender.stdout.layout.type = PatternLayout
appender.stdout.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.stdout.ref = STDOUT
logger.raftserver.name = kafka.server.KafkaRaftServer
logger.raftserver.level = INFO
EOF
}

java_opts() {
  # shellcheck disable=SC2206
  JOPTS=(${FR_KAFKA_HEAP:--Xms256m -Xmx512m} -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true
         "-Djava.io.tmpdir=$TMP_DIR" "-Dlog4j2.configurationFile=$LOG4J"
         ${FR_KAFKA_JVM_OPTS:-})
}

random_cluster_id() {
  # Same form as Kafka's Uuid.toString(): 16 random bytes, URL-safe base64, no padding.
  # Kafka never hands out ids that start with '-', so neither do we.
  local id
  while :; do
    id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
    [[ ${#id} -eq 22 && "$id" != -* && "$id" != AAAAAAAAAAAAAAAAAAAAA[AQ] ]] && break
  done
  echo "$id"
}

# --- readiness -----------------------------------------------------------------------------
PY=${FR_PYTHON:-python3}
have_confluent() { "$PY" -c 'import confluent_kafka' >/dev/null 2>&1; }

metadata_ok() {
  "$PY" - "$HOST:$PORT" <<'EOF' >/dev/null 2>&1
import sys
from confluent_kafka.admin import AdminClient
md = AdminClient({"bootstrap.servers": sys.argv[1]}).list_topics(timeout=5)
sys.exit(0 if md.brokers and md.controller_id is not None else 1)
EOF
}

fail_start() { # pid, message
  local pid=$1
  log "$2"
  if [[ -n "$pid" ]] && is_our_broker "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$PIDFILE" "$BOOTFILE"
  if [[ -f "$LOGFILE" ]]; then
    log "last lines of $LOGFILE:"
    tail -n 40 "$LOGFILE" >&2
  fi
  exit 1
}

# --- commands ------------------------------------------------------------------------------
# One start/stop/kill at a time per node: fd 9 holds the node's lock until the command ends.
lock_state() {
  mkdir -p "$STATE_DIR"
  exec 9>"$STATE_DIR/.lock"
  flock -w 180 9 || die "another kafka.sh start/stop/kill holds $STATE_DIR/.lock"
}

cmd_start() {
  lock_state

  local pid
  pid=$(read_pid)
  if [[ -n "$pid" ]] && is_our_broker "$pid"; then
    log "already running (pid $pid)"
    echo "FR_KAFKA_BOOTSTRAP=$(cat "$BOOTFILE" 2>/dev/null || echo "$HOST:$PORT")"
    return 0
  fi
  [[ -z "$pid" ]] || { log "removing stale pidfile (pid $pid is not our broker)"; rm -f "$PIDFILE"; }

  command -v "$JAVA" >/dev/null || die "java not found (Kafka $KAFKA_VERSION needs Java 17+)"
  local p
  for p in "$PORT" "$CONTROLLER_PORT"; do
    if port_open "$p"; then
      log "port $HOST:$p is taken by another process; set FR_KAFKA_PORT / FR_KAFKA_CONTROLLER_PORT"
      exit 75
    fi
  done

  local t0=$SECONDS
  ensure_lib

  if [[ "${FR_KAFKA_KEEP_DATA:-0}" != 1 ]]; then rm -rf "$DATA_DIR"; fi
  rm -rf "$TMP_DIR"
  write_config
  java_opts

  local cluster_id
  cluster_id=${FR_KAFKA_CLUSTER_ID:-$(random_cluster_id)}
  if ! "$JAVA" "${JOPTS[@]}" -cp "$LIB_DIR/*" kafka.tools.StorageTool format \
        -t "$cluster_id" -c "$PROPS" --ignore-formatted >"$STATE_DIR/format.log" 2>&1; then
    cat "$STATE_DIR/format.log" >&2
    die "storage format failed"
  fi

  : >"$LOGFILE"
  # `sh -c 'echo $$; exec java'` records the pid that becomes the JVM itself; setsid detaches
  # it from the caller's terminal/process group so Ctrl-C in the caller does not reach it.
  # fds 8/9 (our flock locks) are closed so the broker does not hold them for its lifetime.
  # shellcheck disable=SC2016  # $$ / $1 / $@ are expanded by the inner sh
  setsid sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$PIDFILE" \
    "$JAVA" "${JOPTS[@]}" -cp "$LIB_DIR/*" kafka.Kafka "$PROPS" \
    </dev/null >>"$LOGFILE" 2>&1 9>&- 8>&- &
  for _ in $(seq 1 50); do [[ -s "$PIDFILE" ]] && break; sleep 0.1; done
  pid=$(read_pid)
  [[ -n "$pid" ]] || fail_start "" "broker did not write its pidfile"
  echo "$HOST:$PORT" >"$BOOTFILE"

  local probe=0
  have_confluent && probe=1
  local deadline=$((SECONDS + START_TIMEOUT)) up_port=0 up_log=0
  while :; do
    is_our_broker "$pid" || fail_start "" "broker (pid $pid) exited during startup"
    ((up_port)) || { port_open "$PORT" && up_port=1; } || true
    ((up_log)) || { grep -q 'Kafka Server started' "$LOGFILE" && up_log=1; } || true
    if ((up_port && up_log)); then
      if ((!probe)) || metadata_ok; then break; fi
    fi
    ((SECONDS < deadline)) || fail_start "$pid" "broker not ready after ${START_TIMEOUT}s (port=$up_port started-line=$up_log metadata-probe=$probe)"
    sleep 0.3
  done
  log "Kafka $KAFKA_VERSION ready in $((SECONDS - t0))s (pid $pid, log $LOGFILE$( ((probe)) && echo ', metadata request ok'))"
  echo "FR_KAFKA_BOOTSTRAP=$HOST:$PORT"
}

cmd_stop() {
  lock_state
  local pid
  pid=$(read_pid)
  if [[ -z "$pid" ]]; then log "not running (no pidfile)"; rm -f "$BOOTFILE"; return 0; fi
  if ! is_our_broker "$pid"; then
    log "not running (stale pidfile, pid $pid is not our broker)"
    rm -f "$PIDFILE" "$BOOTFILE"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + STOP_TIMEOUT))
  while alive "$pid" && ((SECONDS < deadline)); do sleep 0.2; done
  if alive "$pid"; then
    log "pid $pid still alive after ${STOP_TIMEOUT}s, sending KILL"
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do alive "$pid" || break; sleep 0.1; done
  fi
  rm -f "$PIDFILE" "$BOOTFILE"
  log "stopped (pid $pid)"
}

cmd_kill() {
  lock_state
  local pid
  pid=$(read_pid)
  if [[ -z "$pid" ]] || ! is_our_broker "$pid"; then die "not running (nothing to kill in $STATE_DIR)"; fi
  kill -KILL "$pid"
  for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.05; done
  rm -f "$PIDFILE" "$BOOTFILE"
  log "killed pid $pid (node $NODE_ID; its data stays: start it again with FR_KAFKA_KEEP_DATA=1)"
}

cmd_status() {
  local pid
  pid=$(read_pid)
  if [[ -n "$pid" ]] && is_our_broker "$pid"; then
    echo "kafka: running pid=$pid bootstrap=$(cat "$BOOTFILE" 2>/dev/null || echo "$HOST:$PORT") version=$KAFKA_VERSION"
    return 0
  fi
  echo "kafka: stopped"
  return 3
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  kill) cmd_kill ;;
  status) cmd_status ;;
  restart) "$0" stop && exec "$0" start ;;
  cluster-id) random_cluster_id ;;
  *) echo "usage: $0 start|stop|kill|status|restart|cluster-id" >&2; exit 2 ;;
esac
