#!/usr/bin/env bash
# Start the execution service in a kit/exec container and print its endpoint and the container ID.
#
#   OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN=... containers/execution/run-service.sh /path/to/socket-dir
#
# The container has no network, no capabilities, a read-only root and tmpfs scratch; the only way in is the unix
# socket it creates in SOCKET_DIR (made owned by the container's uid 1000). The token reaches the container from
# this environment, never from the command line. Stop it with `docker stop <container ID>` (it is --rm).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
socket_dir="${1:?usage: run-service.sh SOCKET_DIR}"
image="${KIT_EXEC_IMAGE:-kit/exec:latest}"
: "${OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN:?set OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN to the bearer token}"

mkdir -p "$socket_dir"
chown 1000:1000 "$socket_dir"
chmod 0700 "$socket_dir"
socket_dir="$(cd "$socket_dir" && pwd)"

container="$(docker run -d --rm \
    --network none --cap-drop ALL --security-opt no-new-privileges --read-only \
    --security-opt "seccomp=$here/seccomp.json" --security-opt systempaths=unconfined \
    --tmpfs /tmp:rw,size=256m --tmpfs /home/kit:rw,size=512m,uid=1000,gid=1000 \
    --user 1000:1000 \
    -e KIT_DISPLAY=99 -e KIT_SCREEN="${KIT_SCREEN:-1280x800}" -e OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN \
    -v "$socket_dir:/run/kit-exec" \
    "$image")"

for _ in $(seq 200); do
    [ -S "$socket_dir/exec.sock" ] && break
    if [ "$(docker inspect -f '{{.State.Running}}' "$container" 2>/dev/null)" != "true" ]; then
        echo "run-service.sh: the container stopped before its service listened" >&2
        exit 1
    fi
    sleep 0.1
done
[ -S "$socket_dir/exec.sock" ] || { docker stop "$container" >/dev/null; echo "run-service.sh: no socket" >&2; exit 1; }

encoded="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$socket_dir/exec.sock")"
echo "endpoint=http+unix://$encoded/execute"
echo "container=$container"
