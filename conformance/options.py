"""Defaults the kit's command-line options name, kept where the dormant plugin can read them without loading
the harness (see conformance.plugin)."""

from __future__ import annotations

from typing import Final

# The longest wait the documents let a caller ask of a driver is 30 seconds (wait_for's and run_script's
# timeout_ms top out at 30,000 ms). A call into the driver gets twice that before the kit gives up on it, so a
# slow but correct driver that uses the whole allowance (and reports state around it) still finishes.
CONTRACT_LONGEST_WAIT_SECONDS: Final = 30.0
DEFAULT_DRIVER_TIMEOUT: Final = 2 * CONTRACT_LONGEST_WAIT_SECONDS
# conformance.harness.desktops.settings.DEFAULT_SCREEN; the desktops (python-xlib) load only for computer runs.
DEFAULT_SCREEN_SIZE: Final = "1280x800"
# --evidence: rerun failing checks with pictures (within a time budget), rerun all of them, or none.
EVIDENCE_MODES: Final = ("rerun", "rerun-all", "first-run", "off")
# Where the guide's example client reads the execution service's bearer token; --execution-token-env names another.
EXECUTION_TOKEN_VARIABLE: Final = "OPENAI_EXAMPLE_CODE_EXECUTION_TOKEN"
