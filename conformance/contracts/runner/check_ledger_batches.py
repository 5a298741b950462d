"""What each checkpoint holds of the response being worked on: the whole batch beside the history so far, and that
a save with proposals still to run is no place to resume from.

spec/002 "Stream and resume"; spec/000 "Choose which tools can run early".
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import Function, Mode, ScenarioRun, Setup, input_summary, load, modes

BATCH = ["function_call:c1:lookup", "function_call:c2:note"]


def _two_functions(mode: Mode) -> tuple[ScenarioRun, Any]:
    setup = Setup(functions=(Function("lookup", reply="A"), Function("note", reply="B")))
    harness = ScenarioRun(load("two-functions-order"), setup, mode)
    return harness, harness.run()


@pytest.mark.clause("RN-LEDGER-009")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_checkpoints_hold_the_batch_and_the_history(mode: Mode) -> None:
    _, outcome = _two_functions(mode)
    outcome.finished("RN-LEDGER-009")
    histories = [input_summary(checkpoint["history"]) for checkpoint in outcome.checkpoints]
    for earlier, later in pairwise(histories):
        expect(
            later[: len(earlier)] == earlier,
            "RN-LEDGER-009",
            f"a later checkpoint's history does not extend the earlier one: {earlier} then {later}",
        )
    working = [
        checkpoint
        for checkpoint in outcome.checkpoints
        if checkpoint["phase"] == "pending" and checkpoint["consumed_requests"] == 1
    ]
    expect(working, "RN-LEDGER-009", "no save while the first response's calls ran")
    if mode.eager:
        # An eager save may hold only the prefix streamed so far; what it holds must still be in batch order.
        for checkpoint in working:
            pending = input_summary(checkpoint["pending_items"])
            expect(pending == BATCH[: len(pending)], "RN-LEDGER-009", f"an eager save holds {pending}")
        return
    for checkpoint in working:
        held = input_summary(checkpoint["pending_items"])
        expect(
            held == BATCH and input_summary(checkpoint["history"]) == ["user:hi"],
            "RN-LEDGER-009",
            f"a save during the batch holds {held} over history {input_summary(checkpoint['history'])}",
        )


@pytest.mark.clause("RN-LEDGER-003")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_save_with_unrun_proposals_is_not_resumed(mode: Mode) -> None:
    harness, first = _two_functions(mode)
    deferred = [
        checkpoint
        for checkpoint in first.checkpoints
        if checkpoint["phase"] == "pending"
        and "c1" in checkpoint["returned_call_ids"]
        and "c2" not in checkpoint["attempted_call_ids"]
    ]
    expect(deferred, "RN-LEDGER-003", "no save between c1's return and c2's start")
    harness.checkpoints.clear()
    sent_before = len(harness.transport.sent)
    ran_before = list(harness.timeline.calls())
    second = harness.run(
        params={"model": "gpt-test", "input": "continue"}, ledger=harness.ledger(resume_from=deferred[-1])
    )
    expect(second.error is not None, "RN-LEDGER-003", "a save with c2 still to run was resumed")
    expect(len(harness.transport.sent) == sent_before, "RN-LEDGER-003", "the refused resume sent a request")
    expect(harness.timeline.calls() == ran_before, "RN-LEDGER-003", "the refused resume ran a call")
