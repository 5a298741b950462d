#!/usr/bin/env bash
# Start or stop a browser for the reference driver to connect to, with the checkout's venv:
#   scripts/remote-browser.sh playwright-server start   -> prints the ws:// endpoint (DRIVERKIT_BROWSER_WS_ENDPOINT)
#   scripts/remote-browser.sh cdp start                 -> prints the http:// endpoint (DRIVERKIT_BROWSER_CDP_ENDPOINT)
# Each endpoint holds a fresh secret token in its path and gives full control of a browser (files its user can
# read included): keep it out of command lines and logs. It is also kept in the state folder (0700).
#   scripts/remote-browser.sh {playwright-server|cdp} stop
# The browser is launched exactly as the driver launches its own (reference/browser/serve.py says how).
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${KIT_PYTHON:-.venv/bin/python}" -m reference.browser.serve "$@"
