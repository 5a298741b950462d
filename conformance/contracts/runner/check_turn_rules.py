"""What a paused turn refuses: supplied outputs for calls an override may not answer (computer calls, MCP approval
requests, functions already attempted), text on stale or closed turns, anything but text as user guidance, and
guidance that would reset the request budget.

spec/000 "Choose which tools can run early" and "Bound the native input sent on each request" (the
append_user_text paragraph); spec/002 "Mix browser actions with other tools" and "Stream and resume".

A refusal is judged twice: the call raises, and nothing it carried reaches a request.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import (
    MCP_TOOL,
    CapturedRun,
    Function,
    Mode,
    ScenarioRun,
    Setup,
    load,
    modes,
)

CANARY = "supplied-canary-51d0"
OVERRIDABLE = (Function("lookup", allow_output_override=True),)


def _refusals_and_run(cassette: str, setup: Setup, mode: Mode, offer: Any) -> tuple[list[BaseException], CapturedRun]:
    """Iterate ``cassette``, calling ``offer(turn)`` on the first turn and collecting what it raised."""
    refusals: list[BaseException] = []
    offered: list[bool] = []

    def on_turn(turn: Any) -> None:
        if offered:
            return
        offered.append(True)
        try:
            offer(turn)
        except (ValueError, TypeError) as error:
            refusals.append(error)

    return refusals, ScenarioRun(load(cassette), setup, mode).iterate(on_turn)


def _never_sent(outcome: CapturedRun, clause: str) -> None:
    expect(CANARY not in str(outcome.bodies), clause, "the refused value was sent in a request")


@pytest.mark.clause("RN-TURN-004")
@pytest.mark.parametrize(
    "output",
    [
        {"type": "function_call_output", "call_id": "c1", "output": CANARY},
        {"type": "computer_call_output", "call_id": "c1", "output": {"type": "input_text", "text": CANARY}},
    ],
    ids=["as-function-output", "as-computer-output"],
)
@pytest.mark.parametrize("mode", modes(eager=False))
def test_supply_outputs_refuses_a_computer_call(output: dict[str, Any], mode: Mode) -> None:
    setup = Setup(computer=True, functions=OVERRIDABLE)
    refusals, outcome = _refusals_and_run(
        "computer-then-function", setup, mode, lambda turn: turn.supply_outputs([output])
    )
    expect(len(refusals) == 1, "RN-TURN-004", "an output for the computer call c1 was accepted")
    _never_sent(outcome, "RN-TURN-004")


@pytest.mark.clause("RN-TURN-004")
@pytest.mark.parametrize("mode", modes(eager=False))
def test_supply_outputs_refuses_an_mcp_approval_request(mode: Mode) -> None:
    setup = Setup(functions=OVERRIDABLE, run_options={"approve_mcp": lambda request: True}).with_params(
        tools=[dict(MCP_TOOL)]
    )
    refusals, outcome = _refusals_and_run(
        "mcp-approval",
        setup,
        mode,
        lambda turn: turn.supply_outputs([{"type": "function_call_output", "call_id": "apr_1", "output": CANARY}]),
    )
    expect(len(refusals) == 1, "RN-TURN-004", "an output answering the MCP approval request was accepted")
    _never_sent(outcome, "RN-TURN-004")


@pytest.mark.clause("RN-TURN-004")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_supply_outputs_refuses_an_attempted_function(mode: Mode) -> None:
    # In an eager run the paused turn comes after c1 already ran: its result cannot be replaced any more.
    refusals, outcome = _refusals_and_run(
        "one-function",
        Setup(functions=OVERRIDABLE),
        mode,
        lambda turn: turn.supply_outputs([{"type": "function_call_output", "call_id": "c1", "output": CANARY}]),
    )
    expect(outcome.timeline.calls() == ["c1"], "RN-TURN-004", f"calls: {outcome.timeline.calls()}")
    expect(len(refusals) == 1, "RN-TURN-004", "an output for the already attempted c1 was accepted")
    _never_sent(outcome, "RN-TURN-004")


@pytest.mark.clause("RN-TURN-005")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_append_user_text_refused_on_stale_and_closed_turns(mode: Mode) -> None:
    turns: list[Any] = []
    stale: list[BaseException] = []

    def on_turn(turn: Any) -> None:
        turns.append(turn)
        if len(turns) == 2:
            # The first turn has been advanced past: it is stale now.
            try:
                turns[0].append_user_text(f"stale {CANARY}")
            except (ValueError, TypeError) as error:
                stale.append(error)

    outcome = (
        ScenarioRun(load("two-calls-two-turns"), Setup(browser=("get_page_text",)), mode)
        .iterate(on_turn)
        .finished("RN-TURN-005")
    )
    expect(len(turns) == 2, "RN-TURN-005", f"turns: {len(turns)}")
    expect(len(stale) == 1, "RN-TURN-005", "text on an already advanced turn was accepted")
    closed: list[BaseException] = []
    try:
        turns[0].append_user_text(f"closed {CANARY}")
    except Exception as error:  # any refusal: a Node turn whose generator ended throws whatever its handle does
        closed.append(error)
    expect(len(closed) == 1, "RN-TURN-005", "text on a turn of a finished run was accepted")
    _never_sent(outcome, "RN-TURN-005")


@pytest.mark.clause("RN-TURN-006")
@pytest.mark.parametrize(
    "value",
    [
        {"type": "function_call_output", "call_id": "c1", "output": CANARY},
        {"type": "mcp_approval_response", "approval_request_id": "apr_1", "approve": True, "reason": CANARY},
        [{"type": "input_text", "text": CANARY}],
    ],
    ids=["tool-output", "approval-object", "content-list"],
)
@pytest.mark.parametrize("mode", modes(ledger=False, stream=False))
def test_append_user_text_accepts_only_text(value: Any, mode: Mode) -> None:
    refusals, outcome = _refusals_and_run(
        "two-calls-two-turns", Setup(browser=("get_page_text",)), mode, lambda turn: turn.append_user_text(value)
    )
    expect(len(refusals) == 1, "RN-TURN-006", f"{type(value).__name__} accepted as user text")
    _never_sent(outcome, "RN-TURN-006")


@pytest.mark.clause("RN-TURN-007")
@pytest.mark.parametrize("mode", modes())
def test_append_user_text_keeps_the_request_budget(mode: Mode) -> None:
    # Two requests allowed; guidance added on the first turn must not earn the run a third request, and c2, called
    # on the last allowed request, still must not run.
    setup = Setup(run_options={"max_steps": 2})

    guided: list[bool] = []

    def on_turn(turn: Any) -> None:
        if not turn.final and not guided:
            guided.append(True)
            turn.append_user_text("Keep going with the next reference.")

    outcome = ScenarioRun(load("max-steps-two"), setup, mode).iterate(on_turn)
    expect(outcome.error is not None, "RN-TURN-007", "the run went past its request budget")
    expect(len(outcome.requests) == 2, "RN-TURN-007", f"{len(outcome.requests)} requests sent, allowed 2")
    expect("c2" not in outcome.timeline.calls(), "RN-TURN-007", f"calls: {outcome.timeline.calls()}")
    expect(
        "Keep going with the next reference." in str(outcome.bodies[1]),
        "RN-TURN-007",
        "the guidance was not sent with the second request",
    )
