#!/bin/sh
# Start the desktop: Xvfb on display $KIT_DISPLAY, openbox, the optional page server, then Chromium in kiosk
# mode as the container's main process (the container stops when the browser does).
#
#   KIT_DISPLAY     display number; the host picked it and owns its lock file (required)
#   KIT_SCREEN      WIDTHxHEIGHT of the screen (default 1280x800)
#   KIT_START_URL   the page Chromium shows
#   KIT_SERVE_DIR   when set, serve this directory on 127.0.0.1:$KIT_SERVE_PORT inside the container and
#   KIT_EVENTS_FILE append the events pages post to /events to this file (both needed together)
#   KIT_DEVTOOLS_PORT when set, Chromium's DevTools endpoint is offered on this port of every container address
#                   (for a container on a network the host can reach; reference/browser/serve.py desktop-cdp),
#   KIT_DEVTOOLS_TOKEN to clients whose request path starts with /TOKEN/ only (required with KIT_DEVTOOLS_PORT)
#   KIT_HOST_ADDRESS the one address besides loopback Chromium may look up: the host, as this container reaches
#                   it (where the fixture pages and a driver's network guard listen)
set -eu

: "${KIT_DISPLAY:?KIT_DISPLAY must name the display number the host reserved}"
screen="${KIT_SCREEN:-1280x800}"
width="${screen%x*}"
height="${screen#*x}"
export DISPLAY=":$KIT_DISPLAY"

# wait_until TRIES MESSAGE COMMAND...: run COMMAND (its output discarded) every 0.05 s until it succeeds; when it
# has failed TRIES more times, say MESSAGE and stop the container.
wait_until() {
    limit=$1
    message=$2
    shift 2
    tries=0
    until "$@" >/dev/null 2>&1; do
        tries=$((tries + 1))
        if [ "$tries" -gt "$limit" ]; then
            echo "kit-desktop: $message" >&2
            exit 1
        fi
        sleep 0.05
    done
}

# -nolisten tcp: the display is reached only through the shared unix socket.
Xvfb "$DISPLAY" -screen 0 "${screen}x24" -nolisten tcp -noreset &
wait_until 200 "Xvfb did not start on $DISPLAY" xdpyinfo
# Xvfb's compiled-in default is already US, but the driver's key tables assume it: make it explicit.
setxkbmap -layout us

openbox >/dev/null 2>&1 &

if [ -n "${KIT_SERVE_DIR:-}" ]; then
    : "${KIT_EVENTS_FILE:?KIT_EVENTS_FILE is required with KIT_SERVE_DIR}"
    python3 /opt/kit/page_server.py --root "$KIT_SERVE_DIR" --events "$KIT_EVENTS_FILE" \
        --port "${KIT_SERVE_PORT:-8000}" &
    wait_until 100 "page server did not start" \
        python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 0.2)" \
        "${KIT_SERVE_PORT:-8000}"
fi

resolver_rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"
if [ -n "${KIT_HOST_ADDRESS:-}" ]; then
    resolver_rules="$resolver_rules, EXCLUDE $KIT_HOST_ADDRESS"
fi
devtools=""
if [ -n "${KIT_DEVTOOLS_PORT:-}" ]; then
    # Chromium listens on the container's loopback only; the relay offers it on the container's network.
    # Headless: a DevTools client drives pages itself, and a window on the screen would sit under the X
    # pointer, whose position the page would see as real mouse events (a mouseover nobody asked for).
    # The relay is the port's only door: whoever reaches the port controls the browser, so it lets through only
    # requests that carry the token, and the desktop does not start without one.
    : "${KIT_DEVTOOLS_TOKEN:?KIT_DEVTOOLS_TOKEN must hold the token the DevTools relay asks of every client}"
    devtools="--remote-debugging-port=9223 --headless"
    python3 /opt/kit/devtools_relay.py "$KIT_DEVTOOLS_PORT" 9223 &
fi
# Only the relay needs the token: the browser's environment (and what its pages could learn of it) goes without.
unset KIT_DEVTOOLS_TOKEN

# --no-sandbox: Docker's default seccomp profile blocks the user namespaces Chromium's sandbox needs; the
# container (non-root, no capabilities, no network) is the isolation boundary instead.
# --host-resolver-rules keeps every lookup inside Chromium (IP literals included), so background services cannot
# reach the internet even if a network were attached; --test-type hides the unsupported-flag bar that would shift the page.
exec /usr/lib/chromium/chromium \
    --no-sandbox --test-type --disable-gpu --disable-dev-shm-usage \
    --no-first-run --no-default-browser-check --disable-default-apps --disable-extensions \
    --disable-background-networking --disable-component-update --disable-sync --disable-quic \
    --password-store=basic --noerrdialogs --disable-session-crashed-bubble \
    "--host-resolver-rules=$resolver_rules" \
    --user-data-dir="$HOME/chromium-profile" \
    --kiosk --window-position=0,0 "--window-size=${width},${height}" \
    $devtools "${KIT_START_URL:-about:blank}" 2>/dev/null
