#!/usr/bin/env bash
# Start or stop a browser for the reference driver to connect to, with the checkout's venv:
#   scripts/remote-browser.sh playwright-server start   -> prints the ws:// endpoint (DRIVERKIT_BROWSER_WS_ENDPOINT)
#   scripts/remote-browser.sh cdp start                 -> prints the http:// endpoint (DRIVERKIT_BROWSER_CDP_ENDPOINT)
#   scripts/remote-browser.sh {playwright-server|cdp} stop
# The browser is launched exactly as the driver launches its own (reference/browser/serve.py says how).
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${KIT_PYTHON:-.venv/bin/python}" -m reference.browser.serve "$@"
