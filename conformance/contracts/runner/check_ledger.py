"""Ledger checkpoints and resume.

spec/000 "Bound the native input sent on each request" (checkpoint saves, 14 fields);
spec/002 "Stream and resume" (resume only from a completed boundary, budget survives resume).
"""

from __future__ import annotations

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import Function, Mode, ScenarioRun, Setup, input_summary, load, modes, run

CHECKPOINT_FIELDS = {
    "version",
    "run_id",
    "revision",
    "phase",
    "max_steps",
    "consumed_requests",
    "tools",
    "output_override_names",
    "history",
    "attempted_call_ids",
    "returned_call_ids",
    "pending_items",
    "returned_outputs",
    "final_response",
}


@pytest.mark.clause("RN-LEDGER-001")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_every_checkpoint_is_complete_and_detached(mode: Mode) -> None:
    outcome = run("one-function", Setup(), mode)
    expect(outcome.error is None, "RN-LEDGER-001", f"run failed: {outcome.error!r}")
    expect(outcome.checkpoints, "RN-LEDGER-001", "no checkpoint saved")
    for checkpoint in outcome.checkpoints:
        expect(set(checkpoint) == CHECKPOINT_FIELDS, "RN-LEDGER-001", f"fields: {sorted(checkpoint)}")
    revisions = [checkpoint["revision"] for checkpoint in outcome.checkpoints]
    expect(revisions == sorted(set(revisions)), "RN-LEDGER-001", f"revisions not increasing: {revisions}")
    ids = {id(checkpoint) for checkpoint in outcome.checkpoints}
    histories = {id(checkpoint["history"]) for checkpoint in outcome.checkpoints}
    expect(len(ids) == len(histories) == len(outcome.checkpoints), "RN-LEDGER-001", "checkpoints share objects")
    expect(outcome.checkpoints[-1]["phase"] == "final", "RN-LEDGER-001", "the last save is the final phase")


@pytest.mark.clause("RN-LEDGER-002")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_saves_surround_each_effect(mode: Mode) -> None:
    saved_at_call: list[int] = []
    # Record how many checkpoints existed when the effect ran, to place the effect between two saves.
    setup = Setup(
        functions=(Function("lookup", side_effect=lambda arguments: saved_at_call.append(len(harness.checkpoints))),)
    )
    harness = ScenarioRun(load("one-function"), setup, mode)
    outcome = harness.run()
    expect(outcome.error is None, "RN-LEDGER-002", f"run failed: {outcome.error!r}")
    (index,) = saved_at_call
    before, after = outcome.checkpoints[index - 1], outcome.checkpoints[index]
    expect(
        "c1" in before["attempted_call_ids"] or any(item.get("call_id") == "c1" for item in before["pending_items"]),
        "RN-LEDGER-002",
        f"the save before the effect does not record call c1: {before}",
    )
    expect(
        any(output.get("call_id") == "c1" for output in after["returned_outputs"])
        or "c1" in after["returned_call_ids"],
        "RN-LEDGER-002",
        f"the save after the effect does not record its output: {after}",
    )


@pytest.mark.clause("RN-LEDGER-003", "RN-LEDGER-004")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_resume_from_boundary_keeps_history_and_budget(mode: Mode) -> None:
    harness = ScenarioRun(load("ledger-resume"), Setup(run_options={"max_steps": 4}), mode)
    first = harness.run()
    expect(first.error is not None, "RN-LEDGER-004", "the first run must fail on the HTTP 500")
    boundaries = [checkpoint for checkpoint in first.checkpoints if checkpoint["phase"] == "boundary"]
    resume_point = boundaries[-1]
    consumed = resume_point["consumed_requests"]
    harness.checkpoints.clear()
    second = harness.run(
        params={"model": "gpt-test", "input": "continue"}, ledger=harness.ledger(resume_from=resume_point)
    )
    expect(second.error is None, "RN-LEDGER-003", f"resume failed: {second.error!r}")
    resumed_input = input_summary(second.input_of(2))
    expect(
        resumed_input[:3] == ["user:hi", "function_call:c1:lookup", "function_call_output:c1:ok"]
        and resumed_input[-1] == "user:continue",
        "RN-LEDGER-004",
        f"resumed request input: {resumed_input}",
    )
    expect(
        all(checkpoint["consumed_requests"] > consumed for checkpoint in second.checkpoints[1:]),
        "RN-LEDGER-004",
        "consumed_requests restarted after resume",
    )


@pytest.mark.clause("RN-LEDGER-004")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_request_budget_survives_resume(mode: Mode) -> None:
    harness = ScenarioRun(load("ledger-budget-resume"), Setup(run_options={"max_steps": 3}), mode)
    first = harness.run()
    boundary = [checkpoint for checkpoint in first.checkpoints if checkpoint["phase"] == "boundary"][-1]
    sent_before = len(harness.transport.sent)
    harness.checkpoints.clear()
    second = harness.run(params={"model": "gpt-test", "input": "continue"}, ledger=harness.ledger(resume_from=boundary))
    new_requests = len(harness.transport.sent) - sent_before
    expect(second.error is not None, "RN-LEDGER-004", "the resumed run must stop at the original max_steps")
    remaining = 3 - boundary["consumed_requests"]
    expect(
        new_requests == remaining,
        "RN-LEDGER-004",
        f"resumed run sent {new_requests} requests after {boundary['consumed_requests']} of 3 were consumed",
    )
    expect("c2" not in harness.timeline.calls(), "RN-LEDGER-004", "a call on the last allowed request ran")


@pytest.mark.clause("RN-LEDGER-003")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_pending_checkpoint_is_never_resumable(mode: Mode) -> None:
    harness = ScenarioRun(load("ledger-resume"), Setup(), mode)
    first = harness.run()
    pending = [checkpoint for checkpoint in first.checkpoints if checkpoint["phase"] == "pending"]
    expect(pending, "RN-LEDGER-003", "the run saved no pending checkpoint around its effect")
    sent_before = len(harness.transport.sent)
    second = harness.run(
        params={"model": "gpt-test", "input": "continue"}, ledger=harness.ledger(resume_from=pending[-1])
    )
    expect(second.error is not None, "RN-LEDGER-003", "resuming from a pending checkpoint must be refused")
    expect(len(harness.transport.sent) == sent_before, "RN-LEDGER-003", "a request was sent from a pending point")
