"""What the runner accepts at construction and before dispatch: function names, call names and IDs, tool
declarations, tool_choice, storage, streaming default and run options.

spec/000 "Mix browser, computer, and ordinary functions", "Streaming and interrupted actions" and "Choose which
tools can run early"; spec/002 "Select methods" (browser_ names) and "Stream and resume" (max_concurrent_calls,
the streaming default).

A refusal "before any request" is judged from the cassette transport: it must have served nothing, and no
executor may have run. Construction refusals are captured whether the SDK raises them when the runner is built
or when the run starts, since the documents promise only that nothing happens first.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from conformance import rig
from conformance.assertions import expect
from conformance.contracts.runner._scenario import (
    CapturedRun,
    Function,
    Mode,
    ScenarioRun,
    Setup,
    input_summary,
    load,
    modes,
)
from conformance.fake_responses import fake_async_client, fake_client
from conformance.flavours import Flavour
from conformance.node.bridge import NodeError
from conformance.rig.decisions import flavours


def attempt(cassette: str, setup: Setup, mode: Mode) -> tuple[ScenarioRun, CapturedRun]:
    """Run ``cassette`` in ``mode``, capturing a refusal raised while the runner is built as well as one raised
    by the run, so a check can ask whether anything happened before it."""
    harness = ScenarioRun(load(cassette), setup, mode)
    try:
        return harness, harness.run()
    except (ValueError, TypeError, NodeError) as error:
        return harness, harness.captured(None, error)


def refused_up_front(outcome: CapturedRun, clause: str, what: str) -> None:
    expect(outcome.error is not None, clause, f"{what} was accepted")
    expect(outcome.requests == [], clause, f"{what}: a request was sent before the refusal")
    expect(outcome.timeline.calls() == [], clause, f"{what}: calls ran before the refusal: {outcome.timeline.calls()}")
    expect(outcome.checkpoints == [], clause, f"{what}: a checkpoint was saved before the refusal")


# ------------------------------------------------------------------------------------------ function names


@pytest.mark.clause("RN-REG-001")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_duplicate_function_names_are_refused(mode: Mode) -> None:
    _, outcome = attempt("never-served", Setup(functions=(Function("lookup"), Function("lookup"))), mode)
    refused_up_front(outcome, "RN-REG-001", "two functions named lookup")


@pytest.mark.clause("RN-REG-002")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_function_named_like_an_enabled_browser_tool_is_refused(mode: Mode) -> None:
    setup = Setup(browser=("get_page_text",), functions=(Function("browser_get_page_text"),))
    _, outcome = attempt("never-served", setup, mode)
    refused_up_front(outcome, "RN-REG-002", "a function named browser_get_page_text beside the enabled tool")


@pytest.mark.clause("RN-REG-003")
@pytest.mark.parametrize("mode", modes())
def test_browser_prefixed_function_reaches_its_executor(mode: Mode) -> None:
    # browser_notes is no browser tool at all; get_page_text is enabled so the browser toolset is in the run.
    setup = Setup(browser=("get_page_text",), functions=(Function("browser_notes", reply="noted"),))
    _, outcome = attempt("browser-prefixed-function", setup, mode)
    outcome.finished("RN-REG-003")
    expect(
        outcome.timeline.entries.count("call:browser_notes:c1") == 1,
        "RN-REG-003",
        f"the registered executor did not get the call: {outcome.timeline.entries}",
    )
    expect(
        outcome.probe_log.count("get_page_text") == 0,
        "RN-REG-003",
        f"the browser driver was asked instead: {outcome.probe_log.names()}",
    )
    expect(
        "function_call_output:c1:noted" in input_summary(outcome.input_of(1)),
        "RN-REG-003",
        f"the executor's output was not sent: {input_summary(outcome.input_of(1))}",
    )


# ------------------------------------------------------------------------------------------ calls before dispatch


def refused_unanswered(outcome: CapturedRun, clause: str, refused: str, what: str) -> None:
    """The run stopped on the first response with nothing run for the refused call (timeline entries starting with
    ``refused``) and no further request, which answering it would have needed."""
    expect(outcome.error is not None, clause, f"{what} was accepted")
    expect(
        not any(entry.startswith(refused) for entry in outcome.timeline.entries),
        clause,
        f"{what}: {refused} ran: {outcome.timeline.entries}",
    )
    expect(len(outcome.requests) == 1, clause, f"{what}: {len(outcome.requests)} requests were sent")


@pytest.mark.clause("RN-REG-004")
@pytest.mark.parametrize("mode", modes())
def test_call_without_executor_never_runs_or_is_answered(mode: Mode) -> None:
    _, outcome = attempt("unregistered-function-second", Setup(), mode)
    refused_unanswered(outcome, "RN-REG-004", "call:unregistered", "a call to an unregistered function")
    _, completed = outcome.receipts
    expect("c2" not in completed, "RN-REG-004", f"the unregistered call is reported completed: {completed}")


@pytest.mark.clause("RN-REG-005")
@pytest.mark.parametrize("cassette", ["unregistered-function-second", "duplicate-call-id"])
@pytest.mark.parametrize("mode", modes(eager=False))
def test_whole_response_is_validated_before_dispatch(cassette: str, mode: Mode) -> None:
    # Without eager, nothing may run before every call name and call ID of the response passed validation; the
    # valid call comes first in both cassettes.
    setup = Setup(functions=(Function("lookup"), Function("note")))
    _, outcome = attempt(cassette, setup, mode)
    outcome.stopped_before_any_call("RN-REG-005", f"{cassette} was accepted", requests=1)
    expect(outcome.receipts == ((), ()), "RN-REG-005", f"receipts: {outcome.receipts}")


@pytest.mark.clause("RN-REG-005")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_duplicate_call_id_never_runs_twice_eagerly(mode: Mode) -> None:
    # An eager run may start the first c1 before the duplicate arrives, but never the second item.
    setup = Setup(functions=(Function("lookup"), Function("note")))
    _, outcome = attempt("duplicate-call-id", setup, mode)
    # The second c1 is the cassette's note call.
    refused_unanswered(outcome, "RN-REG-005", "call:note", "a duplicate call ID")


@pytest.mark.clause("RN-STREAM-013")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_eager_item_missing_from_completed_response_stops_with_receipts(mode: Mode) -> None:
    _, outcome = attempt("completed-drops-eager-item", Setup(), mode)
    expect(outcome.error is not None, "RN-STREAM-013", "the run went on after its executed item disappeared")
    expect(outcome.timeline.calls() == ["c1"], "RN-STREAM-013", f"calls: {outcome.timeline.calls()}")
    expect(len(outcome.requests) == 1, "RN-STREAM-013", f"{len(outcome.requests)} requests were sent")
    attempted, _ = outcome.receipts
    expect(attempted == ("c1",), "RN-STREAM-013", f"the execution record was lost: {outcome.receipts}")


# ------------------------------------------------------------------------------------------ declarations


@pytest.mark.clause("RN-CHOICE-003")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_choice_forcing_the_computer_is_refused(mode: Mode) -> None:
    setup = Setup(computer=True).with_params(tool_choice={"type": "computer"})
    _, outcome = attempt("never-served", setup, mode)
    refused_up_front(outcome, "RN-CHOICE-003", "tool_choice forcing the computer")


@pytest.mark.clause("RN-SERVER-004")
@pytest.mark.parametrize(
    "computer,tools",
    [(False, [{"type": "computer"}]), (True, [{"type": "computer"}, {"type": "computer"}])],
    ids=["no-registered-computer", "two-declarations"],
)
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_computer_declaration_needs_one_registered_computer(computer: bool, tools: Any, mode: Mode) -> None:
    _, outcome = attempt("never-served", Setup(computer=computer).with_params(tools=tools), mode)
    refused_up_front(outcome, "RN-SERVER-004", f"tools {tools} with a registered computer: {computer}")


@pytest.mark.clause("RN-SERVER-005")
@pytest.mark.parametrize("mode", modes())
def test_registered_computer_is_declared_by_default(mode: Mode) -> None:
    _, outcome = attempt("one-function", Setup(computer=True), mode)
    outcome.finished("RN-SERVER-005")
    declared = [body.get("tools") or [] for body in outcome.bodies]
    expect(
        all({"type": "computer"} in tools for tools in declared),
        "RN-SERVER-005",
        f"tools sent: {declared}",
    )


@pytest.mark.clause("RN-SERVER-006")
@pytest.mark.parametrize("store", [None, False], ids=["omitted", "false"])
@pytest.mark.parametrize("mode", modes())
def test_runner_never_turns_storage_on(store: bool | None, mode: Mode) -> None:
    setup = Setup() if store is None else Setup().with_params(store=store)
    _, outcome = attempt("one-function", setup, mode)
    outcome.finished("RN-SERVER-006")
    sent = [body.get("store", "omitted") for body in outcome.bodies]
    expect(all(value is not True for value in sent), "RN-SERVER-006", f"store sent: {sent}")
    if store is False:
        expect(sent == [False, False], "RN-SERVER-006", f"store=False was not kept: {sent}")


# ------------------------------------------------------------------------------------------ run options


@pytest.mark.clause("RN-CONC-011")
@pytest.mark.parametrize("limit", [0, -1, 1.5, True, "2"], ids=["zero", "negative", "fraction", "boolean", "string"])
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_max_concurrent_calls_must_be_a_positive_integer(limit: object, mode: Mode) -> None:
    _, outcome = attempt("never-served", Setup(run_options={"max_concurrent_calls": limit}), mode)
    refused_up_front(outcome, "RN-CONC-011", f"max_concurrent_calls={limit!r}")


@pytest.mark.clause("RN-EARLY-008")
@pytest.mark.parametrize("functions", [["missing"], ["lookup", "lookup"]], ids=["unknown-name", "duplicated-name"])
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_early_execution_names_must_be_registered_and_unique(functions: list[str], mode: Mode) -> None:
    _, outcome = attempt("never-served", Setup(early_execution={"functions": functions}), mode)
    refused_up_front(outcome, "RN-EARLY-008", f"early_execution functions {functions}")


@pytest.mark.clause("RN-PARAM-002")
@pytest.mark.parametrize("flavour", flavours())
def test_runs_are_not_streamed_unless_asked(flavour: Flavour) -> None:
    # Called without any stream argument at all: the default, not stream=False, is what the documents describe.
    harness = ScenarioRun(load("one-function"), Setup(), rig.Mode.of(flavour, "plain"))
    runner = harness.build_runner()
    params = dict(harness.setup.params)
    if flavour == "node":
        # The Node runner's options without stream or eager (ResponsesRunnerOptions: both optional).
        response = runner.run(default_delivery=True)
    elif flavour == "sync":
        response = runner.run(fake_client(harness.transport), params)
    else:
        response = asyncio.run(runner.run(fake_async_client(harness.transport), params))
    expect(response.output_text == "Done.", "RN-PARAM-002", "the run did not finish")
    streamed = [body.get("stream") for body in harness.captured(response, None).bodies]
    expect(all(value in (None, False) for value in streamed), "RN-PARAM-002", f"stream sent: {streamed}")
    accepts = [request.headers.get("accept", "") for request in harness.transport.sent]
    expect(not any("text/event-stream" in accept for accept in accepts), "RN-PARAM-002", f"accept headers: {accepts}")
