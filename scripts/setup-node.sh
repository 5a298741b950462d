#!/usr/bin/env bash
# The Node part of scripts/setup.sh: Node 18+ with npm (Debian's nodejs and npm when no such node is on PATH), then
# the npm packages JavaScript driver certification and the execution service's JavaScript runtime use. Run by
# setup.sh (which passes SUDO); safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
SUDO="${SUDO-}"
# JavaScript drivers need Node 18 or newer with npm: Debian's nodejs and npm when no such node is on PATH
# (Debian 12's is Node 18, enough for the kit's host, tsx and the npm openai helpers).
node_major() { node -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }
if ! command -v node >/dev/null || [ "$(node_major)" -lt 18 ] || ! command -v npm >/dev/null; then
  echo "setup: installing Debian's nodejs and npm (JavaScript drivers need Node 18+ with npm)"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
if command -v npm >/dev/null && [ "$(node_major)" -ge 18 ]; then
  # JavaScript driver certification (node:PATH#EXPORT): the Node SDK (npm openai) the checks run through, tsx, and
  # Playwright for the reference Node driver, from the committed lockfile (Playwright's browser download skipped:
  # Debian's Chromium is used). Skipped when node_modules was made from this very lockfile (a copy is kept next
  # to it), so a second run costs nothing. npm only warns where a package declares a newer engine.
  if ! cmp -s package-lock.json node_modules/.driverkit-installed-lock.json 2>/dev/null; then
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent
    cp package-lock.json node_modules/.driverkit-installed-lock.json
  fi
else
  echo "setup: no Node 18+ with npm even after apt-get; JavaScript driver certification stays unavailable" \
       "(driverkit doctor says why)" >&2
fi
# The execution service's JavaScript runtime: Playwright for Node from its committed lockfile (it never downloads a
# browser: the runtime drives Debian's Chromium). Playwright itself needs Node 20.
if command -v npm >/dev/null && [ "$(node_major)" -ge 20 ]; then
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix reference/execution/js --no-audit --no-fund --silent
else
  echo "setup: Node $(node_major) is older than 20: the execution service's JavaScript runtime and the reference" \
       "Node browser driver (Playwright) stay unavailable" >&2
fi
