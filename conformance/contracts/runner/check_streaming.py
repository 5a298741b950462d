"""Streamed runs: when calls start, what index faults do, and what survives a broken stream.

spec/000 "Streaming and interrupted actions" and "Mix browser, computer, and ordinary functions" (index gaps);
spec/002 "Stream and resume".
"""

from __future__ import annotations

from collections import Counter

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import Function, Mode, Setup, modes, run

BOTH = (Function("lookup"), Function("note"))


@pytest.mark.clause("RN-STREAM-001")
@pytest.mark.parametrize("mode", modes(stream=True, eager=False))
def test_non_eager_waits_for_completed_response(mode: Mode) -> None:
    outcome = run("function-then-message-same-turn", Setup(), mode).finished("RN-STREAM-001")
    outcome.timeline.expect_waited("RN-STREAM-001", "call ran before the completed response", "call:lookup:c1")


@pytest.mark.clause("RN-STREAM-002")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_eager_starts_at_item_done(mode: Mode) -> None:
    outcome = run("function-then-message-same-turn", Setup(), mode).finished("RN-STREAM-002")
    entries = outcome.timeline.entries
    first_done = entries.index("event:response.output_item.done")
    call = entries.index("call:lookup:c1")
    expect(
        first_done < call < entries.index("event:response.completed"),
        "RN-STREAM-002",
        f"eager call did not start between its done event and completion: {entries}",
    )
    expect(
        entries[first_done + 1] == "call:lookup:c1",
        "RN-STREAM-002",
        f"the runner read further events before starting the completed item: {entries}",
    )


@pytest.mark.clause("RN-STREAM-003")
@pytest.mark.parametrize("mode", modes(stream=True))
def test_out_of_order_index_defers_until_completion(mode: Mode) -> None:
    outcome = run("out-of-order-indices", Setup(functions=BOTH), mode).finished("RN-STREAM-003")
    timeline = outcome.timeline
    timeline.expect_waited(
        "RN-STREAM-003", "a call after the out-of-order index ran before completion", "call:lookup:c1", "call:note:c2"
    )
    expect(outcome.timeline.calls() == ["c1", "c2"], "RN-STREAM-003", "calls must run in output order")


@pytest.mark.clause("RN-STREAM-003", "RN-LOOP-003")
@pytest.mark.parametrize("mode", modes(stream=True))
def test_gap_defers_suffix_then_continues(mode: Mode) -> None:
    # The done event for index 1 never arrives; index 2 arrives after index 0. The documents say the suffix
    # after the gap waits for the completed response to confirm the order; nothing says the run fails.
    outcome = run("gap-in-indices", Setup(functions=BOTH), mode)
    entries = outcome.timeline.entries
    completed = entries.index("event:response.completed") if "event:response.completed" in entries else -1
    expect(
        "call:lookup:c3" not in entries[: max(completed, 0)],
        "RN-STREAM-003",
        f"the item after the gap ran before completion: {entries}",
    )
    expect(
        outcome.error is None,
        "RN-STREAM-003",
        f"the completed response confirmed the order but the run stopped: {outcome.error!r}",
    )
    expect(outcome.timeline.calls() == ["c1", "c2", "c3"], "RN-STREAM-003", f"calls: {outcome.timeline.calls()}")


@pytest.mark.clause("RN-STREAM-006")
@pytest.mark.parametrize("mode", modes(stream=True))
def test_duplicate_index_never_repeats_an_item(mode: Mode) -> None:
    outcome = run("duplicate-index", Setup(functions=BOTH), mode)
    counts = Counter(outcome.timeline.calls())
    expect(all(count == 1 for count in counts.values()), "RN-STREAM-006", f"repeated executions: {counts}")


@pytest.mark.clause("RN-STREAM-004")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_changed_item_after_execution_stops_with_receipts(mode: Mode) -> None:
    outcome = run("completed-disagrees", Setup(), mode)
    expect(outcome.error is not None, "RN-STREAM-004", "a completed response that changes an executed item")
    expect(outcome.receipts == (("c1",), ("c1",)), "RN-STREAM-004", f"receipts: {outcome.receipts}")
    expect(len(outcome.requests) == 1, "RN-STREAM-004", "no further request after the mismatch")
    expect(outcome.timeline.calls() == ["c1"], "RN-STREAM-004", f"calls: {outcome.timeline.calls()}")


@pytest.mark.clause("RN-STREAM-006")
@pytest.mark.parametrize("mode", modes(stream=True))
def test_changed_item_never_runs_twice(mode: Mode) -> None:
    outcome = run("completed-disagrees", Setup(), mode)
    expect(len(outcome.timeline.calls()) <= 1, "RN-STREAM-006", f"calls: {outcome.timeline.calls()}")


@pytest.mark.clause("RN-STREAM-005")
@pytest.mark.parametrize("cassette", ["stream-cut-after-call", "stream-dropped-after-call", "response-failed"])
@pytest.mark.parametrize("mode", modes(eager=True))
def test_stream_failure_after_executed_call_keeps_receipts(cassette: str, mode: Mode) -> None:
    outcome = run(cassette, Setup(functions=BOTH), mode)
    expect(outcome.error is not None, "RN-STREAM-005", "a stream without completion must stop the run")
    expect(outcome.receipts == (("c1",), ("c1",)), "RN-STREAM-005", f"receipts: {outcome.receipts}")
    expect(outcome.timeline.calls() == ["c1"], "RN-STREAM-005", f"calls: {outcome.timeline.calls()}")
    expect(len(outcome.requests) == 1, "RN-STREAM-005", "no request after the failure")


@pytest.mark.clause("RN-STREAM-001", "RN-STREAM-005")
@pytest.mark.parametrize("cassette", ["stream-cut-after-call", "stream-dropped-after-call", "response-failed"])
@pytest.mark.parametrize("mode", modes(stream=True, eager=False))
def test_stream_failure_without_eager_runs_nothing(cassette: str, mode: Mode) -> None:
    outcome = run(cassette, Setup(functions=BOTH), mode)
    expect(outcome.error is not None, "RN-STREAM-005", "a stream without completion must stop the run")
    expect(outcome.timeline.calls() == [], "RN-STREAM-001", f"calls ran without completion: {outcome.timeline.calls()}")
    expect(outcome.receipts == ((), ()), "RN-STREAM-005", f"receipts: {outcome.receipts}")
