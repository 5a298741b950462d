"""The runner rig: how the kit drives the SDK's runners over recorded Responses traffic.

One definition of each piece, shared by the runner suite (``conformance/contracts/runner``), ``driverkit replay``
and the reference examples' rehearsals:

- :mod:`~conformance.rig.modes`: a run's :class:`Mode` (flavour, plain/streamed/eager delivery, ledger);
- :mod:`~conformance.rig.runners`: clients answered by a cassette, toolsets, runner construction, callbacks and
  ledgers in the run's flavour, and running a runner to its end;
- :mod:`~conformance.rig.decisions`: one Decisions run over a cassette, with its executed actions traced.
"""

from conformance.rig.modes import ALL_MODES, DELIVERIES, Mode, ModeError, parse_mode
from conformance.rig.runners import (
    browser_toolset,
    build_runner,
    cassette_client,
    checkpoint_ledger,
    computer_toolset,
    in_flavour,
    run_to_end,
)

__all__ = [
    "ALL_MODES",
    "DELIVERIES",
    "Mode",
    "ModeError",
    "browser_toolset",
    "build_runner",
    "cassette_client",
    "checkpoint_ledger",
    "computer_toolset",
    "in_flavour",
    "parse_mode",
    "run_to_end",
]
