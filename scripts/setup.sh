#!/usr/bin/env bash
# Installs what the kit needs on Debian 12 (as root, or with sudo): Debian's Chromium and its headless shell
# (Playwright cannot download its own browser here; the shell is the cheaper headless one), the X11 desktop
# tools, a Docker engine and debootstrap for the desktop image, and the Python venv in .venv with the kit
# installed in editable mode, and Node 18+ with the npm packages for JavaScript drivers (scripts/setup-node.sh).
# Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
packages=(chromium chromium-headless-shell xvfb xauth openbox xdotool x11-utils scrot fonts-dejavu-core
          docker.io debootstrap busybox-static python3-venv python3-tk ca-certificates bubblewrap util-linux
          python3-pil python3-xlib docker-compose iptables)
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
SUDO="$SUDO" bash scripts/setup-node.sh
.venv/bin/python -c "import conformance.plugin, openai; print('setup: kit ready, openai', openai.__version__)"
