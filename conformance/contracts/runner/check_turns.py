"""iterate() turns (supply_outputs, append_user_text, closing), diagnostics and cancellation.

spec/000 "Choose which tools can run early", "Bound the native input sent on each request" and
"Streaming and interrupted actions".
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from openai.lib.responses_tool_runner import AsyncRegisteredFunction, AsyncResponsesToolRunner, ToolRunnerCancelledError

from conformance import python_only_reasons as python_only
from conformance.assertions import expect
from conformance.contracts.runner._node_scenario import close_at_first_turn_in_node
from conformance.contracts.runner._scenario import (
    Function,
    Mode,
    ScenarioRun,
    Setup,
    function_tool,
    input_summary,
    load,
    modes,
    raised_by_cancelled_task,
)
from conformance.fake_responses import CassetteTransport, fake_async_client

OVERRIDABLE = Setup(browser=("get_page_text",), functions=(Function("lookup", allow_output_override=True),))


@pytest.mark.clause("RN-TURN-001")
@pytest.mark.parametrize("mode", modes(eager=False))
def test_supplied_output_replaces_unattempted_function(mode: Mode) -> None:
    def on_turn(turn: Any) -> None:
        if not turn.final:
            turn.supply_outputs([{"type": "function_call_output", "call_id": "c1", "output": "supplied"}])

    outcome = ScenarioRun(load("two-calls-two-turns"), OVERRIDABLE, mode).iterate(on_turn).finished("RN-TURN-001")
    expect("c1" not in outcome.timeline.calls(), "RN-TURN-001", "the executor ran despite a supplied output")
    expect(
        "function_call_output:c1:supplied" in input_summary(outcome.input_of(1)),
        "RN-TURN-001",
        f"sent: {input_summary(outcome.input_of(1))}",
    )


@pytest.mark.clause("RN-TURN-001")
@pytest.mark.parametrize("target", ["c2", "c1"], ids=["browser-call", "function-without-override"])
@pytest.mark.parametrize("mode", modes(eager=False, ledger=False))
def test_supply_outputs_refuses_ineligible_calls(target: str, mode: Mode) -> None:
    setup = Setup(browser=("get_page_text",)) if target == "c1" else OVERRIDABLE
    refusals: list[BaseException] = []

    def on_turn(turn: Any) -> None:
        if turn.final:
            return
        try:
            turn.supply_outputs([{"type": "function_call_output", "call_id": target, "output": "fake"}])
        except ValueError as error:
            refusals.append(error)

    outcome = ScenarioRun(load("two-calls-two-turns"), setup, mode).iterate(on_turn)
    expect(len(refusals) == 1, "RN-TURN-001", f"supplying an output for {target} was accepted")
    expect("fake" not in str(outcome.input_of(1)), "RN-TURN-001", "the refused output was sent anyway")


@pytest.mark.clause("RN-TURN-002")
@pytest.mark.parametrize("mode", modes())
def test_append_user_text_goes_after_outputs(mode: Mode) -> None:
    final_refusals: list[BaseException] = []

    def on_turn(turn: Any) -> None:
        if not turn.final:
            turn.append_user_text('{"approve": true}')
            return
        try:
            turn.append_user_text("too late")
        except ValueError as error:
            final_refusals.append(error)

    outcome = (
        ScenarioRun(load("two-calls-two-turns"), Setup(browser=("get_page_text",)), mode)
        .iterate(on_turn)
        .finished("RN-TURN-002")
    )
    sent = input_summary(outcome.input_of(1))
    expect(
        sent[-1] == 'user:{"approve": true}' and sent[-2].startswith("function_call_output:c2"),
        "RN-TURN-002",
        f"second request input: {sent}",
    )
    expect(len(final_refusals) == 1, "RN-TURN-002", "the final turn accepted new text")


@pytest.mark.clause("RN-TURN-002")
@pytest.mark.parametrize("text", ["", "   "], ids=["empty", "blank"])
@pytest.mark.parametrize("mode", modes(ledger=False, stream=False))
def test_append_user_text_refuses_empty_text(text: str, mode: Mode) -> None:
    refusals: list[BaseException] = []

    def on_turn(turn: Any) -> None:
        if not turn.final:
            try:
                turn.append_user_text(text)
            except ValueError as error:
                refusals.append(error)

    ScenarioRun(load("two-calls-two-turns"), Setup(browser=("get_page_text",)), mode).iterate(on_turn)
    expect(len(refusals) == 1, "RN-TURN-002", f"text {text!r} was accepted")


@pytest.mark.clause("RN-TURN-003")
@pytest.mark.parametrize("mode", modes(eager=False, ledger=False))
def test_closing_iterator_at_boundary_runs_nothing(mode: Mode) -> None:
    harness = ScenarioRun(load("one-function"), Setup(), mode)
    if mode.flavour == "node":
        close_at_first_turn_in_node(harness)
    elif mode.flavour == "sync":
        from conformance.fake_responses import fake_client

        runner = harness.build_runner()
        iterator = runner.iterate(fake_client(harness.transport), dict(harness.setup.params), **harness.run_kwargs())
        next(iterator)
        iterator.close()
    else:
        runner = harness.build_runner()
        kwargs = harness.run_kwargs()

        async def go() -> None:
            iterator = runner.iterate(fake_async_client(harness.transport), dict(harness.setup.params), **kwargs)
            await iterator.__anext__()
            await iterator.aclose()

        asyncio.run(go())
    expect(harness.timeline.calls() == [], "RN-TURN-003", f"calls ran: {harness.timeline.calls()}")
    expect(len(harness.transport.sent) == 1, "RN-TURN-003", "a further request was sent")


@pytest.mark.clause("RN-DIAG-001")
@pytest.mark.parametrize("mode", modes())
def test_each_request_reports_usage(mode: Mode) -> None:
    outcome = ScenarioRun(load("one-function"), Setup(), mode).run()
    requests = [d for d in outcome.diagnostics if d["stage"] == "request" and d["reason"] == "completed"]
    expect(len(requests) == 2, "RN-DIAG-001", f"request diagnostics: {requests}")
    expect(
        all(
            d["api"] == "responses" and d["usage"] == {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
            for d in requests
        ),
        "RN-DIAG-001",
        f"usage: {[d['usage'] for d in requests]}",
    )
    fields = {"api", "stage", "reason", "duration_ms", "call_id", "member", "usage"}
    expect(all(set(d) == fields for d in outcome.diagnostics), "RN-DIAG-001", "diagnostic fields differ")


@pytest.mark.clause("RN-CANCEL-001")
@pytest.mark.parametrize("mode", modes())
def test_cancelled_predicate_stops_with_receipts(mode: Mode) -> None:
    flag: list[bool] = []
    setup = Setup(
        functions=(Function("lookup", side_effect=lambda arguments: flag.append(True)), Function("note")),
        run_options={"cancelled": lambda: bool(flag)},
    )
    outcome = ScenarioRun(load("cancel-during-call"), setup, mode).run()
    expect(outcome.error is not None, "RN-CANCEL-001", "the run must stop once cancelled")
    expect(outcome.timeline.calls() == ["c1"], "RN-CANCEL-001", f"calls after cancellation: {outcome.timeline.calls()}")
    expect(outcome.receipts == (("c1",), ("c1",)), "RN-CANCEL-001", f"receipts: {outcome.receipts}")
    expect(len(outcome.requests) == 1, "RN-CANCEL-001", "a request was sent after cancellation")


@pytest.mark.python_sdk_only(python_only.RUNNER_TASK)
@pytest.mark.clause("RN-CANCEL-002")
@pytest.mark.parametrize("stream,eager", [(False, False), (True, False), (True, True)])
def test_task_cancellation_raises_runner_cancelled_error(stream: bool, eager: bool) -> None:
    started = asyncio.Event()

    async def slow(arguments: dict[str, object]) -> str:
        started.set()
        await asyncio.sleep(10)
        return "late"

    runner = AsyncResponsesToolRunner(
        functions=[AsyncRegisteredFunction(tool=function_tool("lookup"), execute=slow)]  # type: ignore[arg-type]
    )
    transport = CassetteTransport(load("one-function"), match="endpoint")
    caught = raised_by_cancelled_task(
        lambda: runner.run(
            fake_async_client(transport), {"model": "gpt-test", "input": "hi"}, stream=stream, eager=eager
        ),
        started,
        ToolRunnerCancelledError,
    )
    expect(len(caught) == 1, "RN-CANCEL-002", "the task did not see ToolRunnerCancelledError")
    expect(
        tuple(caught[0].attempted_call_ids) == ("c1",) and tuple(caught[0].completed_call_ids) == (),
        "RN-CANCEL-002",
        f"receipts: {caught[0].attempted_call_ids}, {caught[0].completed_call_ids}",
    )
    expect(runner.close() == {"status": "closed"}, "RN-CANCEL-002", "the runner was not released")
