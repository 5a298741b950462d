"""early_execution, before_early_call and max_concurrent_calls.

spec/000 "Choose which tools can run early"; spec/002 "Stream and resume".
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import Function, Mode, Setup, modes, run

BROWSER = ("get_page_text",)


@pytest.mark.clause("RN-EARLY-001")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_listed_browser_read_runs_early_unlisted_function_waits(mode: Mode) -> None:
    setup = Setup(browser=BROWSER, early_execution={"functions": ["browser_get_page_text"]})
    outcome = run("browser-then-function", setup, mode).finished("RN-EARLY-001")
    timeline = outcome.timeline
    expect(timeline.ran_early("call:browser_get_page_text:"), "RN-EARLY-001", f"{timeline.entries}")
    timeline.expect_waited("RN-EARLY-001", "unlisted function ran early", "call:lookup:c2")


@pytest.mark.clause("RN-EARLY-002")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_empty_policy_defers_everything(mode: Mode) -> None:
    outcome = run("browser-then-function", Setup(browser=BROWSER, early_execution={}), mode).finished("RN-EARLY-002")
    timeline = outcome.timeline
    timeline.expect_waited(
        "RN-EARLY-002", "a call ran before the completed response", "call:browser_get_page_text:", "call:lookup:c2"
    )


@pytest.mark.clause("RN-EARLY-003")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_first_deferral_holds_the_allowed_suffix(mode: Mode) -> None:
    setup = Setup(browser=BROWSER, early_execution={"functions": ["browser_get_page_text"]})
    outcome = run("function-then-browser", setup, mode).finished("RN-EARLY-003")
    outcome.timeline.expect_held_behind("RN-EARLY-003", deferred="call:lookup:c1", held="call:browser_get_page_text:")


@pytest.mark.clause("RN-EARLY-004")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_computer_flag_false_keeps_functions_early(mode: Mode) -> None:
    # The separate computer flag selects only the native dispatcher; listed functions still start early.
    setup = Setup(computer=True, early_execution={"functions": ["lookup"], "computer": False})
    outcome = run("function-then-message-same-turn", setup, mode).finished("RN-EARLY-004")
    expect(
        outcome.timeline.ran_early("call:lookup:c1"),
        "RN-EARLY-004",
        f"listed function waited: {outcome.timeline.entries}",
    )


@pytest.mark.clause("RN-EARLY-004", "RN-EARLY-003")
@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("mode", modes(eager=True))
def test_computer_flag_selects_native_dispatcher(flag: bool, mode: Mode) -> None:
    setup = Setup(computer=True, early_execution={"functions": ["lookup"], "computer": flag})
    outcome = run("computer-then-function", setup, mode).finished("RN-EARLY-004")
    timeline = outcome.timeline
    expect(
        timeline.ran_early("call:computer_click:") is flag,
        "RN-EARLY-004",
        f"computer flag {flag} not honoured: {timeline.entries}",
    )
    # With the computer deferred, the listed function after it must wait too (the deferral holds the suffix).
    expect(
        timeline.ran_early("call:lookup:c2") is flag,
        "RN-EARLY-003",
        f"function after the computer call: {timeline.entries}",
    )
    timeline.expect_in_order("RN-EARLY-003", "call:computer_click:", "call:lookup:c2")


@pytest.mark.clause("RN-EARLY-004")
def test_computer_flag_without_computer_is_rejected() -> None:
    from openai.lib.responses_tool_runner import RegisteredFunction, ResponsesToolRunner

    from conformance.contracts.runner._scenario import function_tool

    function = RegisteredFunction(tool=function_tool("lookup"), execute=lambda arguments: "ok")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ResponsesToolRunner(functions=[function], early_execution={"computer": True})


@pytest.mark.clause("RN-EARLY-005")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_before_early_call_defer_holds_suffix(mode: Mode) -> None:
    seen: list[str] = []

    def hook(call: Any) -> str:
        seen.append(call.call_id)
        call.call_id = "edited"  # a copy: editing it must not change the action
        return "defer"

    setup = Setup(functions=(Function("lookup"), Function("note")), run_options={"before_early_call": hook})
    outcome = run("two-functions-order", setup, mode).finished("RN-EARLY-005")
    timeline = outcome.timeline
    expect(seen[:1] == ["c1"], "RN-EARLY-005", f"hook calls: {seen}")
    timeline.expect_waited("RN-EARLY-005", "deferred calls ran early", "call:lookup:c1", "call:note:c2")
    sent = [item.get("call_id") for item in outcome.input_of(1) if item.get("type") == "function_call_output"]
    expect(sent == ["c1", "c2"], "RN-EARLY-005", f"outputs sent for {sent}")


@pytest.mark.clause("RN-EARLY-006")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_before_early_call_other_answer_stops(mode: Mode) -> None:
    setup = Setup(run_options={"before_early_call": lambda call: True})
    outcome = run("one-function", setup, mode)
    outcome.stopped_before_any_call("RN-EARLY-006", "an answer other than execute/defer must stop the run")


SLOW = (Function("slow", independent=True, hold=0.05),)


@pytest.mark.clause("RN-CONC-001")
@pytest.mark.parametrize("limit", [1, 2, 3])
@pytest.mark.parametrize("mode", modes(eager=True, ledger=False))
def test_independent_calls_respect_window(limit: int, mode: Mode) -> None:
    outcome = run(
        "three-independent", Setup(functions=SLOW, run_options={"max_concurrent_calls": limit}), mode
    ).finished("RN-CONC-001")
    expect(outcome.timeline.peak <= limit, "RN-CONC-001", f"peak {outcome.timeline.peak} above limit {limit}")
    outputs = [item["call_id"] for item in outcome.input_of(1) if item.get("type") == "function_call_output"]
    expect(outputs == ["c1", "c2", "c3"], "RN-CONC-001", f"outputs out of order: {outputs}")


@pytest.mark.clause("RN-CONC-001")
@pytest.mark.parametrize("mode", modes(eager=True, ledger=False))
def test_independent_calls_do_overlap(mode: Mode) -> None:
    # The documents allow overlap here; the default window is 2. A peak of 1 would mean the window is ignored.
    outcome = run("three-independent", Setup(functions=SLOW), mode)
    expect(outcome.timeline.peak == 2, "RN-CONC-001", f"peak concurrency {outcome.timeline.peak}, expected 2")


@pytest.mark.clause("RN-CONC-002")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_ledger_runs_independent_calls_serially(mode: Mode) -> None:
    outcome = run("three-independent", Setup(functions=SLOW, run_options={"max_concurrent_calls": 3}), mode).finished(
        "RN-CONC-002"
    )
    expect(outcome.timeline.peak == 1, "RN-CONC-002", f"peak concurrency {outcome.timeline.peak} with a ledger")
