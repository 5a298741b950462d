#!/bin/sh
# Start the desktop in the background, wait for its X server, then run the execution service on a unix socket
# as the container's main process (the container stops when the service does).
#
#   KIT_DISPLAY                          display number inside the container (required)
#   KIT_EXEC_SOCKET                      socket path, in a directory mounted from the host
#   OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN  the bearer token callers must present (required)
#   KIT_EXEC_DEADLINE                    seconds per call (default 10)
set -eu

: "${KIT_DISPLAY:?KIT_DISPLAY must name the display number}"
: "${OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN:?a bearer token is required}"

/usr/local/bin/kit-desktop &

tries=0
until DISPLAY=":$KIT_DISPLAY" xdpyinfo >/dev/null 2>&1; do
    tries=$((tries + 1))
    if [ "$tries" -gt 400 ]; then
        echo "kit-exec: the desktop's X server did not start" >&2
        exit 1
    fi
    sleep 0.05
done

# Each runtime gets the same bubblewrap sandbox as on a host (unprivileged here: the service runs as uid 1000), which
# needs the container's seccomp profile to allow user namespaces (containers/execution/seccomp.json).
exec python3 -m reference.execution --display ":$KIT_DISPLAY" --unix-socket "$KIT_EXEC_SOCKET" \
    --deadline "${KIT_EXEC_DEADLINE:-10}"
