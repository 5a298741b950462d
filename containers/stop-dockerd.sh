#!/usr/bin/env bash
# Stop the Docker engine that containers/start-dockerd.sh started (and only that one: it goes by the pid file
# that script wrote). An engine started some other way is left running.
set -euo pipefail

state_dir="${KIT_DOCKER_STATE:-/tmp/kit-dockerd}"
pid_file="$state_dir/dockerd.pid"

if [ ! -s "$pid_file" ]; then
    echo "no dockerd started by start-dockerd.sh ($pid_file missing)"
    exit 0
fi
pid="$(cat "$pid_file")"
if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 120); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.25
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "stop-dockerd.sh: dockerd $pid did not exit within 30 s" >&2
        exit 1
    fi
fi
rm -f "$pid_file"
# dockerd leaves its default network namespace mounted after it exits; unmount it so the next start is clean.
if mountpoint -q /var/run/docker/netns/default 2>/dev/null; then
    umount /var/run/docker/netns/default || true
fi
echo "stopped dockerd $pid"
