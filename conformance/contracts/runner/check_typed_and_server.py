"""Typed registrations (from_tool) and declared server tools beyond web search.

spec/000 "Mix browser, computer, and ordinary functions" (from_tool, params.tools, server results, supply_outputs
at a forced boundary); spec/002 "Mix browser actions with other tools".

Typed registrations: the executor gets the parsed Pydantic model, arguments the model refuses never reach it, and
an output that is neither text nor a function-output content list stops the run without running the call again.
Server tools: file search and code interpreter results are accepted and replayed unchanged; an unfinished server
result (in_progress or incomplete) stops the run before any local effect.

Not judged here, because the documents do not say it: an extra argument field the Pydantic model ignores by its
own configuration (validation is the model's), and a completed server result that differs from its streamed
form in a run that acts only on the completed response.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from openai import pydantic_responses_function_tool
from openai.lib.responses_tool_runner import (
    AsyncRegisteredFunction,
    AsyncResponsesToolRunner,
    RegisteredFunction,
    ResponsesToolRunner,
)

from conformance import python_only_reasons as python_only
from conformance.assertions import expect
from conformance.contracts.runner._scenario import (
    Function,
    Mode,
    ReferenceArguments,
    ScenarioRun,
    Setup,
    input_summary,
    load,
    modes,
    run,
)
from conformance.fake_responses import CassetteTransport, fake_async_client, fake_client

FILE_SEARCH = {"type": "file_search", "vector_store_ids": ["vs_hours"]}
CODE_INTERPRETER = {"type": "code_interpreter", "container": {"type": "auto"}}
WEB_SEARCH = {"type": "web_search"}


# ------------------------------------------------------------------------------------------ typed registrations


@pytest.mark.python_sdk_only(python_only.PYDANTIC)
@pytest.mark.clause("RN-TYPED-001")
@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_typed_executor_receives_the_model_instance(flavour: str) -> None:
    received: list[object] = []
    tool = pydantic_responses_function_tool(ReferenceArguments, name="lookup")
    transport = CassetteTransport(load("one-function"), match="endpoint")
    params: Any = {"model": "gpt-test", "input": "hi"}
    if flavour == "sync":

        def execute(arguments: ReferenceArguments) -> str:
            received.append(arguments)
            return "found"

        ResponsesToolRunner(functions=[RegisteredFunction.from_tool(tool, execute=execute)]).run(
            fake_client(transport), params
        )
    else:

        async def execute_async(arguments: ReferenceArguments) -> str:
            received.append(arguments)
            return "found"

        runner = AsyncResponsesToolRunner(functions=[AsyncRegisteredFunction.from_tool(tool, execute=execute_async)])
        asyncio.run(runner.run(fake_async_client(transport), params))
    expect(len(received) == 1, "RN-TYPED-001", f"executor calls: {received}")
    expect(
        isinstance(received[0], ReferenceArguments),
        "RN-TYPED-001",
        f"the executor got a {type(received[0]).__name__}, not the parsed model",
    )
    expect(getattr(received[0], "reference", None) == "c1", "RN-TYPED-001", f"parsed: {received[0]!r}")


@pytest.mark.clause("RN-TYPED-002")
@pytest.mark.parametrize("cassette", ["typed-arguments-missing-field", "typed-arguments-wrong-type"])
@pytest.mark.parametrize("mode", modes())
def test_arguments_the_model_refuses_never_reach_the_executor(cassette: str, mode: Mode) -> None:
    outcome = run(cassette, Setup(functions=(Function("lookup", typed=True),)), mode)
    outcome.stopped_before_any_call("RN-TYPED-002", "the run accepted arguments the model refuses", requests=1)


@pytest.mark.clause("RN-TYPED-003")
@pytest.mark.parametrize(
    "reply",
    [42, {"text": "found"}, [{"type": "output_text", "text": "found"}], [{"type": "input_text"}]],
    ids=["number", "dict", "wrong-part-type", "part-without-text"],
)
@pytest.mark.parametrize("mode", modes())
def test_invalid_typed_output_stops_without_repeating_the_call(reply: object, mode: Mode) -> None:
    outcome = run("one-function", Setup(functions=(Function("lookup", typed=True, reply=reply),)), mode)
    expect(outcome.error is not None, "RN-TYPED-003", f"an output of {reply!r} was accepted")
    expect(outcome.timeline.calls() == ["c1"], "RN-TYPED-003", f"executor calls: {outcome.timeline.calls()}")
    expect(len(outcome.requests) == 1, "RN-TYPED-003", f"{len(outcome.requests)} requests: the output was sent")


# ------------------------------------------------------------------------------------------ server tools


@pytest.mark.clause("RN-SERVER-007")
@pytest.mark.parametrize("mode", modes())
def test_file_search_and_code_interpreter_results_are_kept_unchanged(mode: Mode) -> None:
    setup = Setup().with_params(tools=[FILE_SEARCH, CODE_INTERPRETER])
    outcome = run("file-search-and-code-interpreter", setup, mode).finished("RN-SERVER-007")
    expect(outcome.timeline.calls() == ["c1"], "RN-SERVER-007", f"calls: {outcome.timeline.calls()}")
    final: Any = load("file-search-and-code-interpreter").exchanges[0].response.final_response() or {}
    served: list[dict[str, Any]] = list(final.get("output", []))
    sent = {item.get("id"): item for item in outcome.input_of(1) if item.get("type") != "function_call_output"}
    for original in served:
        if original["type"] not in ("file_search_call", "code_interpreter_call"):
            continue
        replayed = sent.get(original["id"])
        expect(replayed is not None, "RN-SERVER-007", f"{original['id']} missing from the next request")
        assert replayed is not None
        changed = {key: replayed.get(key) for key, value in original.items() if replayed.get(key) != value}
        expect(not changed, "RN-SERVER-007", f"{original['id']} replayed with changed fields: {changed}")
    declared = [tool.get("type") for tool in outcome.bodies[0].get("tools", [])]
    expect(
        "file_search" in declared and "code_interpreter" in declared,
        "RN-SERVER-007",
        f"declared tools sent: {declared}",
    )


@pytest.mark.clause("RN-SERVER-008")
@pytest.mark.parametrize("cassette", ["server-tool-in-progress", "server-tool-incomplete"])
@pytest.mark.parametrize("mode", modes())
def test_unfinished_server_result_stops_before_local_effects(cassette: str, mode: Mode) -> None:
    outcome = run(cassette, Setup().with_params(tools=[WEB_SEARCH]), mode)
    outcome.stopped_before_any_call("RN-SERVER-008", "the run went on after an unfinished server result", requests=1)
    expect(outcome.receipts == ((), ()), "RN-SERVER-008", f"receipts: {outcome.receipts}")


@pytest.mark.clause("RN-TURN-008")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_supplied_output_at_server_tool_boundary_of_eager_run(mode: Mode) -> None:
    # No early_execution policy: only the declared server tool holds c1 until the complete response.
    setup = Setup(functions=(Function("lookup", allow_output_override=True),)).with_params(tools=[WEB_SEARCH])
    refusals: list[BaseException] = []

    def on_turn(turn: Any) -> None:
        if turn.final:
            return
        try:
            turn.supply_outputs([{"type": "function_call_output", "call_id": "c1", "output": "supplied"}])
        except (ValueError, TypeError) as error:
            refusals.append(error)

    outcome = ScenarioRun(load("server-tool-boundary"), setup, mode).iterate(on_turn)
    expect(refusals == [], "RN-TURN-008", f"the supplied output was refused: {refusals}")
    outcome.finished("RN-TURN-008")
    expect("c1" not in outcome.timeline.calls(), "RN-TURN-008", "the executor ran despite the supplied output")
    expect(
        "function_call_output:c1:supplied" in input_summary(outcome.input_of(1)),
        "RN-TURN-008",
        f"sent: {input_summary(outcome.input_of(1))}",
    )
