#!/usr/bin/env bash
# Debian's headless-capable Chromium for the inspector's browser tests (tests/browser/),
# installed when missing, as redis.sh installs Redis: Playwright's own browser download is
# not reachable here, so Playwright drives this one through `executable_path`.
#
#   deploy/local/chromium.sh      prints the browser's path on stdout (installs it first)
#
# Environment:
#   FR_CHROMIUM   a browser to use as is (its path is printed, nothing is installed)
set -euo pipefail

log() { echo "chromium.sh: $*" >&2; }

find_browser() {
    if [[ -n ${FR_CHROMIUM:-} ]]; then
        [[ -x $FR_CHROMIUM ]] || { log "FR_CHROMIUM=$FR_CHROMIUM is not executable"; exit 1; }
        echo "$FR_CHROMIUM"
        return 0
    fi
    command -v chromium || command -v chromium-browser
}

if find_browser 2>/dev/null; then
    exit 0
fi

sudo=()
if [[ $EUID -ne 0 ]]; then
    command -v sudo >/dev/null || { log "chromium is missing and we are not root"; exit 1; }
    sudo=(sudo -n)
fi
log "installing chromium (apt-get)"
# Parallel starts would fight over the dpkg lock: take turns (machine-wide lock file).
(
    flock 9
    if ! command -v chromium >/dev/null; then
        apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q
            -o DPkg::Lock::Timeout=300)
        "${apt[@]}" update
        "${apt[@]}" install -y --no-install-recommends chromium fonts-dejavu-core
    fi
) 9>"${TMPDIR:-/tmp}/fr-chromium-apt.lock" >&2
find_browser || { log "chromium is still missing after apt-get install"; exit 1; }
