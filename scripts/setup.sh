#!/usr/bin/env bash
# Installs what the kit needs on Debian 12 (as root, or with sudo): Debian's Chromium (Playwright cannot download
# its own browser here), the X11 desktop tools, a Docker engine and debootstrap for the desktop image, and the
# Python venv in .venv with the kit installed in editable mode. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
packages=(chromium xvfb xauth openbox xdotool x11-utils scrot fonts-dejavu-core docker.io debootstrap
          busybox-static python3-venv python3-tk ca-certificates bubblewrap util-linux python3-pil python3-xlib
          docker-compose)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
PYTHON="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
pip_install() { .venv/bin/python -m pip install -q --disable-pip-version-check "$@" 2>&1 | grep -v "^WARNING: Location" || true; }
pip_install -e '.[desktop,execution,dev]'
pip_install --no-deps pyautogui   # see pyproject.toml: its declared dependency would replace python-xlib
# The execution service's JavaScript runtime: Playwright for Node from the committed lockfile (it never downloads
# a browser: the runtime drives Debian's Chromium).
if command -v npm >/dev/null && node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)'; then
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix reference/execution/js --no-audit --no-fund --silent
  # JavaScript driver certification (--driver=node:...): the Node SDK (npm openai) the checks run through and
  # Playwright for the reference Node driver, from the committed lockfile. Skipped when node_modules was made
  # from this very lockfile (a copy is kept next to it), so a second run costs nothing.
  if ! cmp -s package-lock.json node_modules/.driverkit-installed-lock.json 2>/dev/null; then
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --silent
    cp package-lock.json node_modules/.driverkit-installed-lock.json
  fi
else
  echo "setup: Node.js 20+ with npm not found; the execution service's JavaScript runtime and JavaScript driver" \
       "certification stay unavailable (apt-get install -y nodejs npm)" >&2
fi
.venv/bin/python -c "import conformance.plugin, openai; print('setup: kit ready, openai', openai.__version__)"
