#!/usr/bin/env bash
# The kit's test command: its own tests, the SDK toolset and runner suites, and certification of both reference
# browser drivers (inside tests/). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m pytest -n 2 -q tests conformance/contracts/toolset conformance/contracts/runner "$@"
