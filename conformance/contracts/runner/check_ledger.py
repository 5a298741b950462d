"""Ledger checkpoints and resume.

spec/000 "Bound the native input sent on each request" (checkpoint saves, 14 fields);
spec/002 "Stream and resume" (resume only from a completed boundary, budget survives resume).
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance import rig
from conformance.assertions import expect
from conformance.contracts.runner._scenario import Function, Mode, ScenarioRun, Setup, input_summary, load, modes, run
from conformance.members import CHECKPOINT_FIELDS


@pytest.mark.clause("RN-LEDGER-001")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_every_checkpoint_is_complete_and_detached(mode: Mode) -> None:
    outcome = run("one-function", Setup(), mode).finished("RN-LEDGER-001")
    expect(outcome.checkpoints, "RN-LEDGER-001", "no checkpoint saved")
    for checkpoint in outcome.checkpoints:
        expect(set(checkpoint) == CHECKPOINT_FIELDS, "RN-LEDGER-001", f"fields: {sorted(checkpoint)}")
    revisions = [checkpoint["revision"] for checkpoint in outcome.checkpoints]
    expect(revisions == sorted(set(revisions)), "RN-LEDGER-001", f"revisions not increasing: {revisions}")
    ids = {id(checkpoint) for checkpoint in outcome.checkpoints}
    histories = {id(checkpoint["history"]) for checkpoint in outcome.checkpoints}
    expect(len(ids) == len(histories) == len(outcome.checkpoints), "RN-LEDGER-001", "checkpoints share objects")
    expect(outcome.checkpoints[-1]["phase"] == "final", "RN-LEDGER-001", "the last save is the final phase")


def _timed_ledger(harness: ScenarioRun) -> Any:
    """A ledger that also puts each save on the run's timeline (``save:<n>``), so saves order against effects."""

    def record(checkpoint: dict[str, Any]) -> None:
        harness.timeline.add(f"save:{len(harness.checkpoints)}")
        harness.checkpoints.append(checkpoint)

    return rig.checkpoint_ledger(harness.mode.flavour, "run-1", record)


def _saves_around(entries: list[str], effect: str) -> tuple[int, int]:
    """The checkpoint numbers saved last before ``call:<effect>`` and first after ``done:<effect>``; -1 if none."""
    start, end = entries.index(f"call:{effect}"), entries.index(f"done:{effect}")
    before = [int(entry[5:]) for entry in entries[:start] if entry.startswith("save:")]
    after = [int(entry[5:]) for entry in entries[end:] if entry.startswith("save:")]
    return (before[-1] if before else -1), (after[0] if after else -1)


@pytest.mark.clause("RN-LEDGER-002", "RN-LEDGER-005", "RN-LEDGER-006")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_saves_surround_each_effect(mode: Mode) -> None:
    """Strict evidence: a listing of pending items is not a save before dispatch, and only the record of the
    call's output (in returned_outputs, with the ID in returned_call_ids) is a save after it."""
    setup = Setup(functions=(Function("lookup", reply="A"), Function("note", reply="B")))
    harness = ScenarioRun(load("two-functions-order"), setup, mode)
    outcome = harness.run(ledger=_timed_ledger(harness)).finished("RN-LEDGER-002")
    entries = list(outcome.timeline.entries)
    for call_id, name, reply in (("c1", "lookup", "A"), ("c2", "note", "B")):
        before_index, after_index = _saves_around(entries, f"{name}:{call_id}")
        expect(before_index >= 0 and after_index >= 0, "RN-LEDGER-002", f"no save before and after {call_id}")
        before, after = outcome.checkpoints[before_index], outcome.checkpoints[after_index]
        expect(
            call_id in before["attempted_call_ids"] and call_id not in before["returned_call_ids"],
            "RN-LEDGER-005",
            f"the save just before {call_id} runs does not record it as attempted and unreturned: "
            f"attempted {before['attempted_call_ids']}, returned {before['returned_call_ids']}",
        )
        observed = [item.get("call_id") for item in [*before["history"], *before["pending_items"]]]
        expect(
            call_id in observed,
            "RN-LEDGER-005",
            f"the save just before {call_id} runs lacks its item in the observed prefix: {observed}",
        )
        outputs = {output.get("call_id"): output.get("output") for output in after["returned_outputs"]}
        history_outputs = {
            item.get("call_id"): item.get("output")
            for item in after["history"]
            if item.get("type") == "function_call_output"
        }
        expect(
            call_id in after["returned_call_ids"] and {**history_outputs, **outputs}.get(call_id) == reply,
            "RN-LEDGER-006",
            f"the save just after {call_id} returned lacks its output {reply!r}: returned "
            f"{after['returned_call_ids']}, outputs {outputs}",
        )
        next_request = [index for index, entry in enumerate(entries) if entry == "request:1"]
        save_position = entries.index(f"save:{after_index}")
        expect(
            next_request and save_position < next_request[0],
            "RN-LEDGER-006",
            f"the save after {call_id} comes only after the next request",
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
