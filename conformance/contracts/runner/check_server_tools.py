"""Declared server tools, tool_choice, rejected params and browser failures.

spec/000 "Mix browser, computer, and ordinary functions" and "Streaming and interrupted actions";
spec/002 "Mix browser actions with other tools" and "Handle failures".
"""

from __future__ import annotations

from typing import Any

import pytest
from openai.lib.browser import BrowserError

from conformance.assertions import expect
from conformance.contracts.runner._scenario import Mode, Setup, function_tool, input_summary, modes, run

WEB_SEARCH = {"type": "web_search"}


@pytest.mark.clause("RN-SERVER-001")
@pytest.mark.parametrize("mode", modes(stream=True))
def test_server_tool_forces_full_response_boundary(mode: Mode) -> None:
    outcome = run("server-tool-boundary", Setup().with_params(tools=[WEB_SEARCH]), mode).finished("RN-SERVER-001")
    outcome.timeline.expect_waited(
        "RN-SERVER-001", "local call ran before the full response although a server tool is declared", "call:lookup:c1"
    )
    expect(
        input_summary(outcome.input_of(1))[1] == "web_search_call:ws_1",
        "RN-SERVER-001",
        "the completed server result is kept in native history",
    )


@pytest.mark.clause("RN-SERVER-002")
@pytest.mark.parametrize("cassette,tools", [("server-tool-failed", [WEB_SEARCH]), ("server-tool-undeclared", None)])
@pytest.mark.parametrize("mode", modes())
def test_failed_or_undeclared_server_result_stops_local_effects(cassette: str, tools: Any, mode: Mode) -> None:
    setup = Setup().with_params(tools=tools) if tools else Setup()
    outcome = run(cassette, setup, mode)
    outcome.stopped_before_any_call("RN-SERVER-002", f"{cassette}: the run went on")
    expect(outcome.receipts == ((), ()), "RN-SERVER-002", f"receipts: {outcome.receipts}")


@pytest.mark.clause("RN-SERVER-003")
@pytest.mark.parametrize("mode", modes())
def test_store_false_with_image_generation_is_rejected_up_front(mode: Mode) -> None:
    setup = Setup().with_params(tools=[{"type": "image_generation"}], store=False)
    outcome = run("image-generation-stored", setup, mode)
    expect(isinstance(outcome.error, ValueError), "RN-SERVER-003", f"outcome: {outcome.error!r}")
    expect(outcome.requests == [] and outcome.timeline.calls() == [], "RN-SERVER-003", "work happened first")
    expect(outcome.checkpoints == [], "RN-SERVER-003", "a checkpoint was saved before the rejection")


@pytest.mark.clause("RN-SERVER-003")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_stored_image_generation_runs(mode: Mode) -> None:
    setup = Setup().with_params(tools=[{"type": "image_generation"}], store=True)
    outcome = run("image-generation-stored", setup, mode).finished("RN-SERVER-003")
    expect(outcome.bodies[0].get("store") is True, "RN-SERVER-003", "store must be sent as given")


FORCING_CHOICES = [
    pytest.param("required", id="required-all-local"),
    pytest.param({"type": "function", "name": "lookup"}, id="specific-function"),
    pytest.param(
        {"type": "allowed_tools", "mode": "required", "tools": [{"type": "function", "name": "lookup"}]},
        id="allowed-tools-required-local",
    ),
]


@pytest.mark.clause("RN-CHOICE-001")
@pytest.mark.parametrize("choice", FORCING_CHOICES)
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_choice_forcing_local_tool_is_rejected(choice: Any, mode: Mode) -> None:
    outcome = run("never-served", Setup().with_params(tool_choice=choice), mode)
    expect(isinstance(outcome.error, ValueError), "RN-CHOICE-001", f"outcome: {outcome.error!r}")
    expect(outcome.requests == [] and outcome.timeline.calls() == [], "RN-CHOICE-001", "work happened first")


@pytest.mark.clause("RN-CHOICE-002")
@pytest.mark.parametrize("mode", modes())
def test_required_with_server_tool_runs_and_choice_is_preserved(mode: Mode) -> None:
    outcome = run(
        "required-choice-with-server-tool", Setup().with_params(tools=[WEB_SEARCH], tool_choice="required"), mode
    ).finished("RN-CHOICE-002")
    choices = [body.get("tool_choice") for body in outcome.bodies]
    expect(choices == ["required", "required"], "RN-CHOICE-002", f"tool_choice per request: {choices}")


@pytest.mark.clause("RN-PARAM-001")
@pytest.mark.parametrize(
    "extra",
    [{"previous_response_id": "resp_0"}, {"conversation": "conv_1"}, {"background": True}, {"stream": True}],
    ids=["previous_response_id", "conversation", "background", "stream"],
)
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_rejected_params(extra: dict[str, Any], mode: Mode) -> None:
    outcome = run("never-served", Setup().with_params(**extra), mode)
    expect(isinstance(outcome.error, ValueError), "RN-PARAM-001", f"outcome: {outcome.error!r}")
    expect(outcome.requests == [], "RN-PARAM-001", "a request was sent")


@pytest.mark.clause("RN-BROWSER-001", "RN-BROWSER-002", "RN-LOOP-003")
@pytest.mark.parametrize("mode", modes())
def test_browser_failure_skips_rest_of_response_and_recovers(mode: Mode) -> None:
    setup = Setup(
        browser=("get_page_text", "click"),
        browser_replies={"click": BrowserError("The element is gone.")},
    )
    outcome = run("browser-failure-recovered", setup, mode).finished("RN-BROWSER-002")
    calls = [entry for entry in outcome.timeline.entries if entry.startswith("call:")]
    expect(
        calls[:2] == ["call:browser_click:c1", "call:lookup:c3"],
        "RN-BROWSER-001",
        f"first turn effects: {calls}",
    )
    turn_one = [item for item in outcome.input_of(1) if item.get("type") == "function_call_output"]
    expect(
        [item["call_id"] for item in turn_one] == ["c1", "c2", "c3"],
        "RN-BROWSER-001",
        "every browser call gets an output",
    )
    expect(
        calls[2:] == ["call:browser_get_page_text:"] and len(outcome.requests) == 3,
        "RN-BROWSER-002",
        f"the next turn's browser read did not run: {calls}",
    )


def test_harness_function_tool_is_strict() -> None:
    # The scenarios rely on strict schemas so the model-side contract matches what the runner validates.
    assert function_tool("lookup")["strict"] is True
