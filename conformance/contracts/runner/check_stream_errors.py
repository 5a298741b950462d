"""Streams and failures: the cancelled predicate between stream events, on_event copies, receipts of refused or
skipped browser calls, failed actions never run again (by the runner or by an HTTP retry), and which failures
keep the generic message.

spec/000 "Streaming and interrupted actions"; spec/002 "Handle failures" and "Stream and resume".
"""

from __future__ import annotations

from typing import Any

import pytest
from openai.lib.browser import BrowserError

from conformance import rig
from conformance.assertions import expect
from conformance.contracts.runner._scenario import Function, Mode, ScenarioRun, Setup, load, modes, run

GENERIC = "Tool run stopped before completion."
CANARY = "failure-canary-0b7e"
BOTH = (Function("lookup"), Function("note"))


@pytest.mark.clause("RN-CANCEL-003")
@pytest.mark.parametrize("mode", modes(stream=True))
def test_cancelled_between_stream_events_stops_everything_after(mode: Mode) -> None:
    # The stop is asked for while the first item's done event is being reported: nothing may start after it.
    stop: list[bool] = []

    def on_event(event: Any) -> None:
        if event.type == "response.output_item.done" and not stop:
            stop.append(True)

    setup = Setup(functions=BOTH, run_options={"on_event": on_event, "cancelled": lambda: bool(stop)})
    outcome = run("two-functions-order", setup, mode)
    expect(bool(stop), "RN-CANCEL-003", "the stream never reported an item")
    outcome.stopped_before_any_call(
        "RN-CANCEL-003", "the run finished although it was cancelled mid-stream", requests=1
    )


@pytest.mark.clause("RN-STREAM-014")
@pytest.mark.parametrize("mode", modes(stream=True))
def test_edited_stream_events_change_nothing(mode: Mode) -> None:
    def edit(event: Any) -> None:
        items: list[Any] = [getattr(event, "item", None)]
        response = getattr(event, "response", None)
        items += list(getattr(response, "output", None) or [])
        for item in items:
            if getattr(item, "type", None) == "function_call":
                item.arguments = '{"reference":"edited"}'
                item.call_id = "edited"
                item.name = "note"

    outcome = run("one-function", Setup(functions=BOTH, run_options={"on_event": edit}), mode).finished("RN-STREAM-014")
    expect(
        [entry for entry in outcome.timeline.entries if entry.startswith("call:")] == ["call:lookup:c1"],
        "RN-STREAM-014",
        f"the edited event changed the action: {outcome.timeline.entries}",
    )
    sent = [(item.get("type"), item.get("call_id"), item.get("name")) for item in outcome.input_of(1)[1:]]
    expect(
        sent == [("function_call", "c1", "lookup"), ("function_call_output", "c1", None)],
        "RN-STREAM-014",
        f"the edited event changed what was sent: {sent}",
    )


@pytest.mark.clause("RN-BROWSER-003")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_refused_and_skipped_browser_calls_are_completed_receipts(mode: Mode) -> None:
    # c1's click fails (a recoverable BrowserError), c2's read is skipped after it; both got an output from the SDK.
    setup = Setup(browser=("get_page_text", "click"), browser_replies={"click": BrowserError("The element is gone.")})
    turns: list[Any] = []
    ScenarioRun(load("browser-failure-recovered"), setup, mode).iterate(turns.append).finished("RN-BROWSER-003")
    later = turns[1] if len(turns) > 1 else None
    completed = tuple(getattr(later, "completed_call_ids", ()))
    expect(
        {"c1", "c2", "c3"} <= set(completed),
        "RN-BROWSER-003",
        f"completed receipts at the next turn: {completed}",
    )


@pytest.mark.clause("RN-ERR-003")
@pytest.mark.parametrize("mode", modes())
def test_failed_function_is_never_run_again(mode: Mode) -> None:
    outcome = run("one-function", Setup(functions=(Function("lookup", reply=RuntimeError(CANARY)),)), mode)
    expect(outcome.error is not None, "RN-ERR-003", "the run went on after the executor failed")
    expect(outcome.timeline.calls() == ["c1"], "RN-ERR-003", f"executor calls: {outcome.timeline.calls()}")
    expect(len(outcome.requests) == 1, "RN-ERR-003", f"{len(outcome.requests)} requests")


@pytest.mark.clause("RN-ERR-003")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_failed_browser_action_is_never_run_again(mode: Mode) -> None:
    # A driver exception becomes the click's failed output and the run goes on; c1's click must not be repeated on
    # this turn or any later one.
    setup = Setup(browser=("get_page_text", "click"), browser_replies={"click": RuntimeError(CANARY)})
    outcome = run("browser-failure-recovered", setup, mode)
    clicks = [entry for entry in outcome.timeline.entries if entry.startswith("call:browser_click")]
    expect(clicks == ["call:browser_click:c1"], "RN-ERR-003", f"clicks: {clicks}")


@pytest.mark.clause("RN-ERR-004")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_http_retry_never_runs_an_action_again(mode: Mode) -> None:
    # Both requests fail once with HTTP 500 and are retried; c1 must have run once, between them.
    setup = Setup(max_retries=1)
    outcome = run("idempotency-retries", setup, mode).finished("RN-ERR-004")
    expect(len(outcome.requests) == 4, "RN-ERR-004", f"{len(outcome.requests)} requests, expected two retried")
    expect(outcome.timeline.calls() == ["c1"], "RN-ERR-004", f"calls: {outcome.timeline.calls()}")


def _failing_ledger(mode: Mode) -> Any:
    def save(checkpoint: Any) -> None:
        raise RuntimeError(CANARY)

    return rig.checkpoint_ledger(mode.flavour, "run-1", save)


FAILURES = [
    pytest.param("one-function", "executor", id="function-executor"),
    pytest.param("typed-arguments-wrong-type", "parser", id="argument-parser"),
    pytest.param("one-function", "ledger", id="checkpoint-storage"),
]


@pytest.mark.clause("RN-ERR-005")
@pytest.mark.parametrize("cassette,source", FAILURES)
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_driver_parser_and_storage_failures_keep_the_generic_message(cassette: str, source: str, mode: Mode) -> None:
    overrides: dict[str, Any] = {}
    setup = Setup()
    if source == "executor":
        setup = Setup(functions=(Function("lookup", reply=RuntimeError(CANARY)),))
    elif source == "parser":
        setup = Setup(functions=(Function("lookup", typed=True),))
    else:
        overrides["ledger"] = _failing_ledger(mode)
    outcome = ScenarioRun(load(cassette), setup, mode).run(**overrides)
    expect(outcome.error is not None, "RN-ERR-005", f"the {source} failure did not stop the run")
    message = str(outcome.error)
    expect(CANARY not in message, "RN-ERR-005", f"the {source} failure's own text leaks: {message}")
    # The fixed text is the Python guide's; the Node declarations promise a generic stop without naming it.
    if mode.flavour != "node":
        expect(message == GENERIC, "RN-ERR-005", f"{source} failure message: {message!r}")


@pytest.mark.clause("RN-ERR-006")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_mismatched_stream_output_has_its_own_message(mode: Mode) -> None:
    outcome = run("completed-disagrees", Setup(), mode)
    expect(outcome.error is not None, "RN-ERR-006", "the run went on after the completed response disagreed")
    message = str(outcome.error)
    expect(message != GENERIC and message.strip() != "", "RN-ERR-006", f"message: {message!r}")
    expect(
        "stream" in message.lower() or "differ" in message.lower(),
        "RN-ERR-006",
        f"the message does not name the mismatch: {message!r}",
    )
