"""What ComputerToolset.run tells about token usage (spec/002 "Inspect usage and timing"): nothing per request
through its diagnostic observer, and in the response it returns at most the final request's usage, never a total.

The run goes over a two-request cassette (a native click, then an answer) whose requests each report the same
usage, so a total differs from the final request's by a factor of two. On the Node SDK the loop is its
ComputerToolset's run on a Node client (ComputerRunOptions' onDiagnostic is the observer).
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

import pytest

from conformance import rig
from conformance.assertions import expect, precondition
from conformance.contracts.runner._scenario import Mode, ScenarioRun, Setup, load, modes
from conformance.members import COMPUTER_METHODS
from conformance.probes import Act, ProbeLog, computer_probe, default_computer_screenshot

# The cassette's requests each report these token counts (tools/cassettes/runner_sources.py builds every turn with
# the same usage); compaction-computer is the two-request computer-only run the kit already serves, so its params
# carry the context_management that run needs.
CASSETTE: Final = "compaction-computer"
PER_REQUEST: Final = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
MANAGEMENT: Final = [{"type": "compaction", "compact_threshold": 1000}]


def _run(mode: Mode) -> tuple[Any, list[Any], int]:
    """The response ``run`` returned, the diagnostic events it reported and how many requests it sent."""

    def screenshot(argument: object) -> object:
        return default_computer_screenshot()

    replies = {name: Act(screenshot) if name == "screenshot" else None for name in COMPUTER_METHODS}
    driver = computer_probe(mode.flavour, log=ProbeLog(), replies=replies)
    toolset: Any = rig.computer_toolset(mode.flavour, driver)
    harness = ScenarioRun(load(CASSETTE), Setup(), mode)
    client: Any = harness.client()
    events: list[Any] = []
    params = {"model": "gpt-test", "input": "hi", "tools": [{"type": "computer"}], "context_management": MANAGEMENT}
    if mode.flavour == "async":
        response = asyncio.run(toolset.run(client, params, on_diagnostic=events.append))
    else:
        response = toolset.run(client, params, on_diagnostic=events.append)
    return response, events, len(harness.transport.sent)


def _usage(value: Any) -> dict[str, Any] | None:
    usage = value.get("usage") if isinstance(value, dict) else getattr(value, "usage", None)
    if usage is None:
        return None
    dumped = usage.model_dump() if hasattr(usage, "model_dump") else usage
    return dict(dumped) if isinstance(dumped, dict) else {"usage": dumped}


@pytest.mark.clause("TS-DIAG-003")
@pytest.mark.parametrize("mode", modes(stream=False, ledger=False))
def test_computer_run_reports_no_request_usage_to_its_observer(mode: Mode) -> None:
    _, events, requests = _run(mode)
    precondition(requests == 2, "TS-COMP-002", f"the computer-only run sent {requests} requests, not 2")
    reported = [event for event in events if _usage(event) is not None]
    expect(
        reported == [],
        "TS-DIAG-003",
        f"ComputerToolset.run reported request usage through its observer: {reported[:2]}",
    )


@pytest.mark.clause("TS-DIAG-004")
@pytest.mark.parametrize("mode", modes(stream=False, ledger=False))
def test_computer_run_returns_at_most_the_final_request_usage(mode: Mode) -> None:
    response, _, requests = _run(mode)
    precondition(requests == 2, "TS-COMP-002", f"the computer-only run sent {requests} requests, not 2")
    usage = _usage(response)
    if usage is None:
        return  # the documents allow a response without usage
    counts = {name: usage.get(name) for name in PER_REQUEST}
    expect(
        counts == PER_REQUEST,
        "TS-DIAG-004",
        f"the response's usage is {counts}, not the final request's {PER_REQUEST} (a total over the run?)",
    )
