#!/usr/bin/env bash
# The kit's test command: its own tests (harness, reference drivers and their certification, broken drivers,
# desktop, examples, execution service) and the SDK toolset and runner suites. Extra arguments go to pytest.
#
# As root it first starts a Docker engine and builds the desktop images, so the container tests run instead of
# skipping; elsewhere those tests skip with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -eq 0 ]; then
  bash containers/start-dockerd.sh
  bash containers/build-desktop-image.sh
  bash containers/execution/build-image.sh
fi
exec .venv/bin/python -m pytest -n 2 -q tests conformance/contracts/toolset conformance/contracts/runner "$@"
