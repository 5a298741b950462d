"""Native Responses compaction (context_management): the mixed runner and the computer-only loop accept it, check
each compaction item and replay it unchanged; the mixed runner refuses to combine it with its own context budget.

spec/000 "Mix browser, computer, and ordinary functions" (the computer loop) and "Bound the native input sent on
each request" (the mixed runner); spec/002 "Computer driver contract".
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

import pytest
from openai.lib.computer import ComputerUseError

from conformance import rig
from conformance.assertions import expect
from conformance.contracts.runner._scenario import Mode, ScenarioRun, Setup, load, modes, run
from conformance.members import COMPUTER_METHODS
from conformance.node.bridge import NodeError
from conformance.probes import Act, ProbeLog, computer_probe, default_computer_screenshot

MANAGEMENT: Final = [{"type": "compaction", "compact_threshold": 1000}]
# The item the compaction cassettes serve (tools/cassettes/runner_sources.py COMPACTION): replayed as is.
ITEM: Final = {"type": "compaction", "id": "cmp_1", "encrypted_content": "compacted-canary-3f8e=="}


def _replayed(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The compaction items of a request's input, with the fields the API gave them (nothing added or changed)."""
    return [item for item in items if item.get("type") == "compaction"]


@pytest.mark.clause("RN-COMPACT-001")
@pytest.mark.parametrize("mode", modes())
def test_runner_sends_context_management_and_replays_the_item(mode: Mode) -> None:
    outcome = run("compaction-then-function", Setup().with_params(context_management=MANAGEMENT), mode)
    expect(outcome.error is None, "RN-COMPACT-001", f"a run with context_management failed: {outcome.error!r}")
    expect(len(outcome.requests) == 2, "RN-COMPACT-001", f"{len(outcome.requests)} requests, expected 2")
    expect(
        all(body.get("context_management") == MANAGEMENT for body in outcome.bodies),
        "RN-COMPACT-001",
        f"context_management not sent as given: {[body.get('context_management') for body in outcome.bodies]}",
    )
    expect(outcome.timeline.calls() == ["c1"], "RN-COMPACT-001", f"calls: {outcome.timeline.calls()}")
    replayed = _replayed(outcome.input_of(1))
    expect(replayed == [ITEM], "RN-COMPACT-001", f"the next request replays {replayed}, not {ITEM}")


@pytest.mark.clause("RN-COMPACT-002")
@pytest.mark.parametrize("mode", modes())
def test_malformed_compaction_item_stops_the_run(mode: Mode) -> None:
    outcome = run("compaction-malformed", Setup().with_params(context_management=MANAGEMENT), mode)
    outcome.stopped_before_any_call(
        "RN-COMPACT-002", "a compaction item without encrypted content was accepted", requests=1
    )


@pytest.mark.clause("RN-COMPACT-003")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_resumed_run_replays_the_saved_compaction_item(mode: Mode) -> None:
    harness = ScenarioRun(load("compaction-resume"), Setup().with_params(context_management=MANAGEMENT), mode)
    first = harness.run()
    expect(first.error is not None, "RN-COMPACT-003", "run 1 must stop on the HTTP 500")
    boundaries = [checkpoint for checkpoint in first.checkpoints if checkpoint["phase"] == "boundary"]
    expect(boundaries, "RN-LEDGER-003", "run 1 saved no boundary to resume from")
    harness.checkpoints.clear()
    sent_before = len(harness.transport.sent)
    second = harness.run(
        params={"model": "gpt-test", "input": "continue", "context_management": MANAGEMENT},
        ledger=harness.ledger(resume_from=boundaries[-1]),
    )
    expect(second.error is None, "RN-COMPACT-003", f"resume failed: {second.error!r}")
    resumed = harness.transport.sent[sent_before:]
    expect(len(resumed) == 1, "RN-COMPACT-003", f"the resume sent {len(resumed)} requests, expected 1")
    body: dict[str, Any] = resumed[0].body or {}
    replayed = _replayed(list(body["input"]))
    expect(replayed == [ITEM], "RN-COMPACT-003", f"the resumed request replays {replayed}, not {ITEM}")


@pytest.mark.clause("RN-COMPACT-004")
@pytest.mark.parametrize(
    "params",
    [{"context_management": MANAGEMENT}, {"truncation": "auto"}],
    ids=["context-management", "truncation-auto"],
)
@pytest.mark.parametrize("mode", modes())
def test_budget_mode_refuses_server_side_context_handling(params: dict[str, Any], mode: Mode) -> None:
    budget = {"max_input_bytes": 100_000, "max_input_images": 5}
    setup = Setup(run_options={"context_budget": budget}).with_params(**params)
    outcome = run("one-function", setup, mode)
    expect(outcome.error is not None, "RN-COMPACT-004", f"context_budget with {params} was accepted")
    expect(outcome.requests == [], "RN-COMPACT-004", f"{len(outcome.requests)} requests sent before the refusal")
    expect(outcome.timeline.calls() == [], "RN-COMPACT-004", f"calls ran: {outcome.timeline.calls()}")


@pytest.mark.clause("RN-COMPACT-004")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_budget_without_server_side_handling_runs(mode: Mode) -> None:
    # Control for the refusals: the same budget with neither option runs, and gets truncation disabled.
    setup = Setup(run_options={"context_budget": {"max_input_bytes": 100_000, "max_input_images": 5}})
    outcome = run("one-function", setup, mode)
    expect(outcome.error is None, "RN-COMPACT-004", f"a plain budget run failed: {outcome.error!r}")


# ------------------------------------------------------------------------------------------ computer-only loop


def _computer_run(mode: Mode, cassette: str) -> tuple[Any, BaseException | None, list[dict[str, Any]], list[str]]:
    """``ComputerToolset.run`` (or the async one) over ``cassette`` with context_management in its params: the
    response, the error, the request bodies and the driver's actions (on the Node SDK, its ComputerToolset's run on
    a Node client: the computer-only loop the d.ts declares, ComputerRunOptions)."""
    actions: list[str] = []

    def reply_for(method: str) -> Act:
        def act(argument: object) -> object:
            if method == "screenshot":
                return default_computer_screenshot()
            actions.append(method)
            return None

        return Act(act)

    driver = computer_probe(mode.flavour, log=ProbeLog(), replies={name: reply_for(name) for name in COMPUTER_METHODS})
    toolset: Any = rig.computer_toolset(mode.flavour, driver)
    harness = ScenarioRun(load(cassette), Setup(), mode)
    client: Any = harness.client()
    params = {"model": "gpt-test", "input": "hi", "tools": [{"type": "computer"}], "context_management": MANAGEMENT}
    response: Any = None
    error: BaseException | None = None
    try:
        running = toolset.run(client, params)
        response = asyncio.run(running) if mode.flavour == "async" else running
    except (ComputerUseError, ValueError, NodeError) as caught:
        error = caught
    return response, error, [request.body or {} for request in harness.transport.sent], actions


@pytest.mark.clause("RN-COMPACT-005")
@pytest.mark.parametrize("mode", modes(stream=False, ledger=False))
def test_computer_loop_accepts_compaction_and_replays_the_item(mode: Mode) -> None:
    _, error, bodies, actions = _computer_run(mode, "compaction-computer")
    expect(error is None, "RN-COMPACT-005", f"ComputerToolset.run with context_management failed: {error!r}")
    expect(len(bodies) == 2, "RN-COMPACT-005", f"{len(bodies)} requests, expected 2")
    expect(
        all(body.get("context_management") == MANAGEMENT for body in bodies),
        "RN-COMPACT-005",
        f"context_management not sent as given: {[body.get('context_management') for body in bodies]}",
    )
    expect(actions == ["click"], "RN-COMPACT-005", f"driver actions: {actions}")
    second = list(bodies[1].get("input", [])) if len(bodies) > 1 else []
    replayed = _replayed(second)
    expect(replayed == [ITEM], "RN-COMPACT-005", f"the next request replays {replayed}, not {ITEM}")
    kinds = [item.get("type") for item in second]
    expect(
        "compaction" in kinds
        and "computer_call_output" in kinds
        and kinds.index("compaction") < kinds.index("computer_call_output"),
        "RN-COMPACT-005",
        f"the compaction item is not replayed before the computer output: {kinds}",
    )


@pytest.mark.clause("RN-COMPACT-006")
@pytest.mark.parametrize("mode", modes(stream=False, ledger=False))
def test_computer_loop_stops_on_a_malformed_compaction_item(mode: Mode) -> None:
    _, error, bodies, actions = _computer_run(mode, "compaction-computer-malformed")
    expect(error is not None, "RN-COMPACT-006", "a compaction item without encrypted content was accepted")
    expect(actions == [], "RN-COMPACT-006", f"the driver acted: {actions}")
    expect(len(bodies) == 1, "RN-COMPACT-006", f"{len(bodies)} requests were sent")
