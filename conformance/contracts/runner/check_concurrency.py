"""Concurrency windows for independent functions (max_concurrent_calls).

spec/000 "Choose which tools can run early" (the independent-function paragraph) and "Streaming and interrupted
actions"; spec/002 "Stream and resume" (the runner waits for the current group) and "Handle failures" (a failed
ordinary function stops the run).

Everything is judged from the harness timeline: ``call:<name>:<ref>`` when an executor starts, ``done:...`` when it
returns, ``failed:...`` when it raises, ``event:<type>`` per stream event and ``request:N`` per request. Holds only
create chances for a wrong runner to misbehave; where a check needs an overlap or a finishing order to have really
happened, the held call waits for a timeline entry (``Function.hold_until``) instead of for a duration.

The documents allow overlap only for opted-in independent calls in eager runs without a ledger (``overlapping``);
every other mode is checked for the serial behaviour they promise instead.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import pytest
from openai.lib.responses_tool_runner import ToolRunnerCancelledError, ToolRunnerError

from conformance.assertions import expect
from conformance.contracts.runner._scenario import CapturedRun, Function, Mode, ScenarioRun, Setup, load, modes, run
from conformance.fake_responses import fake_async_client

# Long enough that a runner reading on while a call is open almost surely shows it; never asserted as a duration.
OPPORTUNITY = 0.2
# Upper bound for a call waiting on another call's timeline entry; reached only when the runner is wrong.
GATE_LIMIT = 5.0

SLOW = Function("slow", independent=True, hold=OPPORTUNITY)
QUICK = Function("quick", independent=True)
WINDOW_CALLS = ["c1", "c2", "c3", "c4"]


def overlapping(mode: Mode) -> bool:
    """Whether the documents let independent calls overlap in this mode (eager and no ledger)."""
    return mode.eager and not mode.ledger


# The modes in which the documents let independent calls overlap, as a parametrization.
OVERLAPPING_MODES = pytest.mark.parametrize("mode", modes(eager=True, ledger=False))


def slow_for(mode: Mode) -> Function:
    """The held independent call where overlap is allowed; elsewhere holding would only slow the serial run."""
    return SLOW if overlapping(mode) else Function("slow", independent=True)


def started(entries: list[str], ref: str) -> int:
    return next(index for index, entry in enumerate(entries) if entry.startswith("call:") and entry.endswith(f":{ref}"))


def ended(entries: list[str], ref: str) -> int:
    return next(
        index
        for index, entry in enumerate(entries)
        if entry.startswith(("done:", "failed:")) and entry.endswith(f":{ref}")
    )


def call_order(entries: list[str]) -> list[str]:
    return [entry.rsplit(":", 1)[1] for entry in entries if entry.startswith("call:")]


def outputs_sent(outcome: CapturedRun, request: int = 1) -> list[str]:
    return [item["call_id"] for item in outcome.input_of(request) if item.get("type") == "function_call_output"]


def windows(refs: list[str], limit: int) -> list[list[str]]:
    return [refs[start : start + limit] for start in range(0, len(refs), limit)]


def assert_serial(outcome: CapturedRun, refs: list[str], clause: str) -> None:
    """Each call ended before the next one started, in the original order."""
    entries = outcome.timeline.entries
    expect(call_order(entries) == refs, clause, f"calls ran as {call_order(entries)}, expected {refs}")
    for earlier, later in itertools.pairwise(refs):
        expect(
            ended(entries, earlier) < started(entries, later),
            clause,
            f"{later} started before {earlier} ended: {entries}",
        )
    expect(outcome.timeline.peak == 1, clause, f"peak concurrency {outcome.timeline.peak}, expected serial")


def assert_windows_serial(mode: Mode, clause: str, limit: int, functions: tuple[Function, ...] = (SLOW, QUICK)) -> None:
    """The independent-windows scenario, run with ``max_concurrent_calls=limit``, finishes with its calls run one at a
    time."""
    setup = Setup(functions=functions, run_options={"max_concurrent_calls": limit})
    assert_serial(run("independent-windows", setup, mode).finished(clause), WINDOW_CALLS, clause)


# ------------------------------------------------------------------------------------------ windows


@pytest.mark.clause("RN-CONC-003")
@pytest.mark.parametrize("limit", [1, 2, 3])
@OVERLAPPING_MODES
def test_full_window_finishes_before_more_events_are_read(limit: int, mode: Mode) -> None:
    setup = Setup(functions=(SLOW, QUICK), run_options={"max_concurrent_calls": limit})
    outcome = run("independent-windows", setup, mode).finished("RN-CONC-003")
    entries = outcome.timeline.entries
    expect(call_order(entries) == WINDOW_CALLS, "RN-CONC-003", f"calls started as {call_order(entries)}")
    # The builder streams one output_item.done per item, in call order, then the completion: the event the
    # runner reads after admitting call k is the (k+1)-th done event, or the completion after the last call.
    item_events = [index for index, entry in enumerate(entries) if entry == "event:response.output_item.done"]
    next_event = [*item_events[1 : len(WINDOW_CALLS)], entries.index("event:response.completed")]
    for window in windows(WINDOW_CALLS, limit):
        if len(window) < limit:
            continue  # a partial window is closed by the completed turn (RN-CONC-005), not by a full window
        read_next = next_event[WINDOW_CALLS.index(window[-1])]
        still_open = [ref for ref in window if ended(entries, ref) > read_next]
        expect(
            not still_open,
            "RN-CONC-003",
            f"window {window} was full but the runner read on while {still_open} ran: {entries}",
        )
    expect(outputs_sent(outcome) == WINDOW_CALLS, "RN-CONC-003", f"outputs recorded as {outputs_sent(outcome)}")


@pytest.mark.clause("RN-CONC-004")
@OVERLAPPING_MODES
def test_limit_of_one_runs_independent_calls_one_after_another(mode: Mode) -> None:
    assert_windows_serial(mode, "RN-CONC-004", limit=1)


@pytest.mark.clause("RN-CONC-004")
@OVERLAPPING_MODES
def test_default_window_holds_exactly_two_calls(mode: Mode) -> None:
    # c1 stays open until c2 has started, so a default of 2 must show the overlap whatever the machine load;
    # c2 and c4 hold briefly, giving a window wider than 2 the chance to start c3 early.
    functions = (
        Function("slow", independent=True, hold=GATE_LIMIT, hold_until="call:quick:c2"),
        Function("quick", independent=True, hold=OPPORTUNITY),
    )
    outcome = run("independent-windows", Setup(functions=functions), mode).finished("RN-CONC-004")
    entries = outcome.timeline.entries
    expect(started(entries, "c2") < ended(entries, "c1"), "RN-CONC-004", f"c1 and c2 did not overlap: {entries}")
    expect(outcome.timeline.peak == 2, "RN-CONC-004", f"peak concurrency {outcome.timeline.peak}, expected 2")
    expect(
        started(entries, "c3") > max(ended(entries, "c1"), ended(entries, "c2")),
        "RN-CONC-004",
        f"c3 started inside the first window of two: {entries}",
    )


# ------------------------------------------------------------------------------------------ barriers


BARRIERS: dict[str, tuple[dict[str, Any], str]] = {
    # cassette -> (extra setup, timeline entry of the call that must wait)
    "independent-then-browser": ({"browser": ("get_page_text",)}, "call:browser_get_page_text:"),
    "independent-then-computer": ({"computer": True}, "call:computer_click:"),
    "independent-then-dependent": ({}, "call:lookup:c2"),
}


@pytest.mark.clause("RN-CONC-005")
@pytest.mark.parametrize("cassette", list(BARRIERS))
@pytest.mark.parametrize("mode", modes())
def test_browser_computer_and_dependent_calls_wait_for_started_ones(cassette: str, mode: Mode) -> None:
    extra, barrier = BARRIERS[cassette]
    setup = Setup(functions=(slow_for(mode), Function("lookup")), **extra)
    outcome = run(cassette, setup, mode).finished("RN-CONC-005")
    entries = outcome.timeline.entries
    expect(barrier in entries, "RN-CONC-005", f"{barrier} never ran: {entries}")
    expect(
        ended(entries, "c1") < entries.index(barrier),
        "RN-CONC-005",
        f"{barrier} started while independent c1 was still running: {entries}",
    )


def _defer_c2(call: Any) -> str:
    return "defer" if call.call_id == "c2" else "execute"


DEFERRALS = {
    "policy": {"early_execution": {"functions": ["slow"]}},
    "before_early_call": {"run_options": {"before_early_call": _defer_c2}},
}


@pytest.mark.clause("RN-CONC-005")
@pytest.mark.parametrize("deferral", list(DEFERRALS))
@pytest.mark.parametrize("mode", modes(eager=True))
def test_deferral_waits_for_started_independent_calls(deferral: str, mode: Mode) -> None:
    # The deferral of c2 is the point that must wait: the runner reads no further event (here the completion)
    # while c1 is still running. Deferral exists only in eager runs, hence the modes.
    setup = Setup(functions=(slow_for(mode), Function("lookup")), **DEFERRALS[deferral])  # type: ignore[arg-type]
    outcome = run("independent-then-dependent", setup, mode).finished("RN-CONC-005")
    entries = outcome.timeline.entries
    completion = entries.index("event:response.completed")
    expect(started(entries, "c1") < completion, "RN-CONC-005", f"c1 did not start early: {entries}")
    expect(
        ended(entries, "c1") < completion,
        "RN-CONC-005",
        f"the runner read on past the deferral of c2 while c1 was running: {entries}",
    )
    expect(started(entries, "c2") > completion, "RN-CONC-005", f"deferred c2 ran before completion: {entries}")


@pytest.mark.clause("RN-CONC-005")
@pytest.mark.parametrize("mode", modes())
def test_completed_turn_waits_for_started_independent_calls(mode: Mode) -> None:
    # With the default window of two, c3 is started alone and nothing but the end of the turn waits for it.
    harness = ScenarioRun(load("three-independent"), Setup(functions=(slow_for(mode),)), mode)
    outcome = harness.iterate(lambda turn: harness.timeline.add("turn")).finished("RN-CONC-005")
    entries = outcome.timeline.entries
    first_turn = entries.index("turn")
    # Without eager the turn comes before any call starts (it is inspected first), so there is nothing to wait for.
    started_early = [ref for ref in ("c1", "c2", "c3") if started(entries, ref) < first_turn]
    expect(
        started_early == (["c1", "c2", "c3"] if mode.eager else []),
        "RN-CONC-005",
        f"calls started before the turn: {started_early}: {entries}",
    )
    for ref in started_early:
        expect(
            ended(entries, ref) < first_turn,
            "RN-CONC-005",
            f"the completed turn was handed over while {ref} was running: {entries}",
        )


# ------------------------------------------------------------------------------------------ scope


@pytest.mark.clause("RN-CONC-006")
@pytest.mark.parametrize("mode", modes(eager=False, ledger=False))
def test_runs_without_eager_keep_independent_calls_serial(mode: Mode) -> None:
    assert_windows_serial(mode, "RN-CONC-006", limit=4)


@pytest.mark.clause("RN-CONC-006")
@OVERLAPPING_MODES
def test_functions_not_marked_independent_stay_serial(mode: Mode) -> None:
    not_independent = (Function("slow", hold=OPPORTUNITY), Function("quick"))
    assert_windows_serial(mode, "RN-CONC-006", limit=4, functions=not_independent)


@pytest.mark.clause("RN-CONC-006")
@pytest.mark.parametrize("mode", modes(stream=True))
def test_declared_server_tool_keeps_independent_calls_serial(mode: Mode) -> None:
    # A server tool makes local calls wait for the full response; they are then no eager calls and stay serial.
    setup = Setup(functions=(SLOW, QUICK), run_options={"max_concurrent_calls": 4}).with_params(
        tools=[{"type": "web_search"}]
    )
    outcome = run("server-tool-then-independent", setup, mode).finished("RN-CONC-006")
    assert_serial(outcome, ["c1", "c2"], "RN-CONC-006")


@pytest.mark.clause("RN-CONC-006")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_deferred_independent_calls_run_serially_at_the_boundary(mode: Mode) -> None:
    # An empty policy defers every call to the completed response; deferred calls are no eager calls.
    setup = Setup(functions=(SLOW, QUICK), early_execution={}, run_options={"max_concurrent_calls": 4})
    outcome = run("independent-windows", setup, mode).finished("RN-CONC-006")
    entries = outcome.timeline.entries
    expect(
        started(entries, "c1") > entries.index("event:response.completed"),
        "RN-CONC-006",
        f"a deferred call started before the completed response: {entries}",
    )
    assert_serial(outcome, WINDOW_CALLS, "RN-CONC-006")


@pytest.mark.clause("RN-STEPS-001")
@pytest.mark.parametrize("mode", modes())
def test_final_allowed_request_starts_no_independent_call(mode: Mode) -> None:
    # Independent calls bypass the ordinary dispatch in a window; the last-request rule must still hold for them.
    setup = Setup(functions=(SLOW, QUICK), run_options={"max_steps": 1, "max_concurrent_calls": 4})
    outcome = run("independent-windows", setup, mode)
    expect(isinstance(outcome.error, ToolRunnerError), "RN-STEPS-001", f"run did not stop: {outcome.error!r}")
    expect(len(outcome.requests) == 1, "RN-STEPS-001", f"{len(outcome.requests)} requests sent, allowed 1")
    expect(outcome.timeline.calls() == [], "RN-STEPS-001", f"calls run on the last request: {outcome.timeline.calls()}")
    attempted, _ = outcome.receipts
    expect(not attempted, "RN-STEPS-001", f"attempted on the last request: {attempted}")


@pytest.mark.clause("RN-CONC-002")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_ledger_admits_and_returns_independent_calls_one_at_a_time(mode: Mode) -> None:
    # The documents give the reason for serial ledger runs: admission and receipt order. Every checkpoint must
    # show calls admitted in call order, each returned before the next is admitted, whatever the window size.
    setup = Setup(functions=(SLOW, QUICK), run_options={"max_concurrent_calls": 4})
    outcome = run("independent-windows", setup, mode).finished("RN-CONC-002")
    for checkpoint in outcome.checkpoints:
        attempted, returned = list(checkpoint["attempted_call_ids"]), list(checkpoint["returned_call_ids"])
        expect(
            attempted == WINDOW_CALLS[: len(attempted)] and returned == WINDOW_CALLS[: len(returned)],
            "RN-CONC-002",
            f"checkpoint {checkpoint['revision']} admitted {attempted}, returned {returned}",
        )
        expect(
            len(attempted) - len(returned) <= 1,
            "RN-CONC-002",
            f"checkpoint {checkpoint['revision']} holds several open calls: admitted {attempted}, returned {returned}",
        )
    # Each admission is saved on its own (saves come before every effect): c(k+1) open, c1..ck returned.
    receipts = [
        (list(checkpoint["attempted_call_ids"]), list(checkpoint["returned_call_ids"]))
        for checkpoint in outcome.checkpoints
    ]
    for count in range(len(WINDOW_CALLS)):
        admission = (WINDOW_CALLS[: count + 1], WINDOW_CALLS[:count])
        expect(admission in receipts, "RN-CONC-002", f"no checkpoint admits {WINDOW_CALLS[count]} alone: {receipts}")
    final = outcome.checkpoints[-1]
    expect(list(final["returned_call_ids"]) == WINDOW_CALLS, "RN-CONC-002", f"final checkpoint: {final}")


# ------------------------------------------------------------------------------------------ output order


@pytest.mark.clause("RN-CONC-007")
@pytest.mark.parametrize("mode", modes())
def test_outputs_keep_call_order_when_a_later_call_finishes_first(mode: Mode) -> None:
    if overlapping(mode):
        # c1 stays open until c2 has returned, so c2 finishes first on any machine.
        slow = Function("slow", independent=True, hold=GATE_LIMIT, hold_until="done:quick:c2")
    else:
        slow = slow_for(mode)
    outcome = run("independent-windows", Setup(functions=(slow, QUICK)), mode).finished("RN-CONC-007")
    entries = outcome.timeline.entries
    if overlapping(mode):
        expect(ended(entries, "c2") < ended(entries, "c1"), "RN-CONC-007", f"c2 did not finish first: {entries}")
    expect(outputs_sent(outcome) == WINDOW_CALLS, "RN-CONC-007", f"outputs written as {outputs_sent(outcome)}")


# ------------------------------------------------------------------------------------------ failure


@pytest.mark.clause("RN-CONC-008")
@pytest.mark.parametrize("limit", [2, 3])
@pytest.mark.parametrize("mode", modes())
def test_failed_independent_call_stops_run_and_reports_completed_siblings(limit: int, mode: Mode) -> None:
    boom = Function("boom", independent=True, reply=RuntimeError("executor failed"))
    if overlapping(mode):
        # c1 is still running when its sibling c2 fails and returns only afterwards: the case the receipt is for.
        slow = Function("slow", independent=True, hold=GATE_LIMIT, hold_until="failed:boom:c2")
    else:
        slow = Function("slow", independent=True)
    setup = Setup(functions=(slow, boom, QUICK), run_options={"max_concurrent_calls": limit})
    outcome = run("independent-sibling-fails", setup, mode)
    expect(isinstance(outcome.error, ToolRunnerError), "RN-CONC-008", f"run did not stop: {outcome.error!r}")
    expect(len(outcome.requests) == 1, "RN-CONC-008", f"{len(outcome.requests)} requests after the failure")
    entries = outcome.timeline.entries
    attempted, completed = outcome.receipts
    returned = [entry.rsplit(":", 1)[1] for entry in entries if entry.startswith("done:")]
    expect(
        set(call_order(entries)) <= set(attempted),
        "RN-CONC-008",
        f"attempted {attempted}, started {call_order(entries)}",
    )
    expect(set(returned) <= set(completed), "RN-CONC-008", f"completed {completed}, returned {returned}")
    expect("c2" not in completed, "RN-CONC-008", f"the failed call is reported completed: {completed}")
    expect("c1" in completed, "RN-CONC-008", f"completed sibling c1 missing from {completed}: {entries}")
    if overlapping(mode):
        expect(ended(entries, "c2") < ended(entries, "c1"), "RN-CONC-008", f"c1 ended before c2 failed: {entries}")
    if not (overlapping(mode) and limit >= 3):
        # c3 is outside the failing window (or the run is serial): the failure is known before c3 could start.
        expect("c3" not in call_order(entries), "RN-CONC-008", f"c3 started after the failure: {entries}")


# ------------------------------------------------------------------------------------------ typed registrations


@pytest.mark.clause("RN-CONC-009")
@pytest.mark.parametrize("mode", modes())
def test_from_tool_registrations_can_be_independent(mode: Mode) -> None:
    if overlapping(mode):
        slow = Function("slow", independent=True, typed=True, hold=GATE_LIMIT, hold_until="call:quick:c2")
    else:
        slow = Function("slow", independent=True, typed=True)
    quick = Function("quick", independent=True, typed=True)
    outcome = run("independent-windows", Setup(functions=(slow, quick)), mode).finished("RN-CONC-009")
    entries = outcome.timeline.entries
    if overlapping(mode):
        expect(
            started(entries, "c2") < ended(entries, "c1"), "RN-CONC-009", f"typed c1 and c2 did not overlap: {entries}"
        )
        expect(outcome.timeline.peak == 2, "RN-CONC-009", f"peak concurrency {outcome.timeline.peak}, expected 2")
    else:
        assert_serial(outcome, WINDOW_CALLS, "RN-CONC-009")
    expect(outputs_sent(outcome) == WINDOW_CALLS, "RN-CONC-009", f"outputs written as {outputs_sent(outcome)}")


# ------------------------------------------------------------------------------------------ async cancellation

# Only async runners have a task to cancel, and only eager ledger-free runs overlap. The Node SDK's runner is cancelled
# through its run's AbortSignal instead (its `cancelled` mapping, see conformance.node.sdk.callbacks.NodeCancellation);
# an abort is final (aborting again changes nothing), so the Node runner has no repeated cancellation to check.
CANCELLABLE = [
    pytest.param(mode, cancellations, id=f"{mode.id}-{cancellations}")
    for (mode,) in (param.values for param in modes(eager=True, ledger=False))
    if mode.flavour in ("async", "node")
    for cancellations in ((1, 3) if mode.flavour == "async" else (1,))
]


def _cancel_task_while_window_runs(harness: ScenarioRun, cancellations: int) -> BaseException | None:
    """Run the async runner in a task and cancel it ``cancellations`` times once c2 has started (c1 still holds);
    the error the task ended with. ``returned`` goes on the timeline when the task has ended."""
    runner = harness.build_runner()
    kwargs = harness.run_kwargs()

    async def cancel_while_window_runs() -> BaseException | None:
        task = asyncio.create_task(
            runner.run(fake_async_client(harness.transport), dict(harness.setup.params), **kwargs)
        )
        deadline = time.monotonic() + GATE_LIMIT
        while not harness.timeline.has("call:quick:c2") and time.monotonic() < deadline and not task.done():
            await asyncio.sleep(0.002)
        for _ in range(cancellations):
            task.cancel()
            await asyncio.sleep(0)
        try:
            await task
        except BaseException as error:  # the cancellation is the outcome under test
            return error
        finally:
            harness.timeline.add("returned")
        return None

    return asyncio.run(cancel_while_window_runs())


def _abort_node_run_while_window_runs(harness: ScenarioRun) -> BaseException | None:
    """Run the Node runner with a signal aborted as soon as c2 has started (c1 still holds); the run's error.
    ``returned`` goes on the timeline when the run's promise has settled."""
    outcome = harness.run(cancelled=lambda: harness.timeline.has("call:quick:c2"))
    harness.timeline.add("returned")
    return outcome.error


@pytest.mark.clause("RN-CONC-010")
@pytest.mark.parametrize(("mode", "cancellations"), CANCELLABLE)
def test_async_cancellation_drains_started_independent_calls(mode: Mode, cancellations: int) -> None:
    # Both calls of the first window are running when the run is cancelled; the run may end only after both have
    # ended.
    functions = (
        Function("slow", independent=True, hold=OPPORTUNITY),
        Function("quick", independent=True, hold=OPPORTUNITY),
    )
    harness = ScenarioRun(load("independent-windows"), Setup(functions=functions), mode)
    if mode.flavour == "node":
        error = _abort_node_run_while_window_runs(harness)
        # A cancelled Node run stops with the runner's error, which carries the receipts.
        stopped = isinstance(error, ToolRunnerError)
    else:
        error = _cancel_task_while_window_runs(harness, cancellations)
        stopped = isinstance(error, asyncio.CancelledError)
    entries = harness.timeline.entries
    expect("call:quick:c2" in entries, "RN-CONC-010", f"the window never opened: {entries}")
    expect(stopped, "RN-CONC-010", f"run ended with {error!r}, not a cancellation")
    returned = entries.index("returned")
    for ref in ("c1", "c2"):
        expect(ended(entries, ref) < returned, "RN-CONC-010", f"the run returned while {ref} was running: {entries}")
    if isinstance(error, (ToolRunnerCancelledError, ToolRunnerError)):
        attempted, completed = error.attempted_call_ids, error.completed_call_ids
        expect({"c1", "c2"} <= set(attempted), "RN-CONC-010", f"attempted receipts {attempted}")
        finished = [entry.rsplit(":", 1)[1] for entry in entries if entry.startswith("done:")]
        expect(set(finished) <= set(completed), "RN-CONC-010", f"completed {completed}, finished {finished}")
