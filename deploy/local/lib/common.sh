# shellcheck shell=bash
# Shared by the deploy/local scripts (sourced, not run): loopback ports and the test session's
# private run dir. Callers define log() and run with `set -euo pipefail`.

# 0 if something accepts TCP connections on 127.0.0.1:PORT.
port_open() {
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# The ports of the first block whose ports are all free, one per line.
#   free_block FIRST STEP BLOCKS OFFSET...
# Block k uses FIRST + k*STEP + OFFSET for each OFFSET. A pinned FIRST (BLOCKS=1) that is taken
# fails with status 75, like the single-service scripts, so callers can tell "busy" from broken.
free_block() {
    local first=$1 step=$2 blocks=$3 k offset busy
    shift 3
    for ((k = 0; k < blocks; k++)); do
        busy=0
        for offset in "$@"; do
            if port_open $((first + k * step + offset)); then
                busy=1
                break
            fi
        done
        if ((!busy)); then
            for offset in "$@"; do echo $((first + k * step + offset)); done
            return 0
        fi
    done
    return 75
}

# --- a test session: with-services.sh, with-cluster.sh ---------------------------------------
# session_begin NAME: a private run dir FR_RUN_DIR=<FR_RUN_DIR or repo/.run>/NAME.XXXXXX (mode
# 0700, so parallel runs never share a pidfile), FR_PYTHON=<repo>/.venv/bin/python if unset
# (kafka.sh's metadata probe), and an EXIT trap that runs the functions in STOPS in reverse
# order, pass or fail or Ctrl-C, then removes the run dir if every stop succeeded.
session_begin() {
    local repo_root
    repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
    local parent="${FR_RUN_DIR:-$repo_root/.run}"
    mkdir -p "$parent"
    FR_RUN_DIR="$(mktemp -d "$parent/$1.XXXXXX")"
    export FR_RUN_DIR
    STOPS=()
    trap _session_end EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    if [[ -z ${FR_PYTHON:-} && -x $repo_root/.venv/bin/python ]]; then
        export FR_PYTHON="$repo_root/.venv/bin/python"
    fi
}

# shellcheck disable=SC2317,SC2329  # run by the EXIT trap
_session_end() {
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
