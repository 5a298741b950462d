#!/usr/bin/env bash
# Start a Docker engine for the kit if none answers yet, and wait until it is ready.
#
# The machines the kit runs on have no image registry and must not route container traffic anywhere, so the
# engine runs without the default bridge and without touching iptables: containers get `--network none`,
# and only image builds use `--network host` (for apt). Run as root. Idempotent: an engine that already answers
# on $DOCKER_HOST (or the default socket) is left alone and this script exits 0 without starting anything.
#
# Environment:
#   KIT_DOCKER_STATE  where the pid file and log go (default /tmp/kit-dockerd)
#   KIT_DOCKER_WAIT   seconds to wait for the API (default 60)
# Stop what this script started with containers/stop-dockerd.sh.
set -euo pipefail

state_dir="${KIT_DOCKER_STATE:-/tmp/kit-dockerd}"
wait_seconds="${KIT_DOCKER_WAIT:-60}"

if docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
    echo "docker engine already running: $(docker version --format '{{.Server.Version}}')"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "start-dockerd.sh: no docker engine answers and starting one needs root" >&2
    exit 1
fi
if ! command -v dockerd >/dev/null 2>&1; then
    echo "start-dockerd.sh: dockerd not found; install it with: apt-get install -y --no-install-recommends docker.io" >&2
    exit 1
fi

mkdir -p "$state_dir"
# setsid: the engine must outlive this script's process group (CI steps and pytest fixtures call it).
setsid dockerd \
    --iptables=false --ip6tables=false --bridge=none --ip-forward=false --ip-masq=false \
    --pidfile="$state_dir/dockerd.pid" \
    >"$state_dir/dockerd.log" 2>&1 </dev/null &
launcher_pid=$!

deadline=$((SECONDS + wait_seconds))
until docker version --format '{{.Server.Version}}' >/dev/null 2>&1; do
    if ! kill -0 "$launcher_pid" 2>/dev/null; then
        echo "start-dockerd.sh: dockerd exited early; last log lines:" >&2
        tail -n 20 "$state_dir/dockerd.log" >&2
        exit 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
        echo "start-dockerd.sh: dockerd did not answer within ${wait_seconds}s (log: $state_dir/dockerd.log)" >&2
        exit 1
    fi
    sleep 0.25
done
echo "docker engine started: $(docker version --format '{{.Server.Version}}') (pid $(cat "$state_dir/dockerd.pid"))"
