"""What the runner sends back for ordinary functions and what it never sends for remote MCP items.

spec/003 "Use your own UI tools": a function's output may be text, images or both, returned as its
function_call_output; remote MCP tools are run by the API, whose mcp_call carries their output, so the application
answers approval requests but never sends a function_call_output for them.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect
from conformance.cassette_builder import CassetteBuilder, function_call, mcp_approval_request, mcp_call, message
from conformance.contracts.runner._scenario import Function, Mode, ScenarioRun, Setup, mcp_setup, modes, run
from conformance.probes import PIXEL_DATA_URL

TEXT_AND_IMAGE: list[dict[str, Any]] = [
    {"type": "input_text", "text": "The page shows a login form."},
    {"type": "input_image", "image_url": PIXEL_DATA_URL, "detail": "low"},
    {"type": "input_text", "text": "Captured after the form loaded."},
]

PART_LISTS = [
    pytest.param(TEXT_AND_IMAGE, id="text-image-text"),
    pytest.param([TEXT_AND_IMAGE[1], TEXT_AND_IMAGE[0]], id="image-then-text"),
    pytest.param([TEXT_AND_IMAGE[1]], id="image-only"),
    pytest.param([TEXT_AND_IMAGE[0]], id="text-only"),
]


@pytest.mark.clause("RN-LOOP-005")
@pytest.mark.parametrize("parts", PART_LISTS)
@pytest.mark.parametrize("mode", modes())
def test_function_part_list_is_sent_back_intact(parts: list[dict[str, Any]], mode: Mode) -> None:
    reply = [dict(part) for part in parts]
    outcome = run("one-function", Setup(functions=(Function("lookup", reply=reply),)), mode).finished("RN-LOOP-005")
    outputs = [item for item in outcome.input_of(1) if item.get("type") == "function_call_output"]
    expect(
        [item.get("call_id") for item in outputs] == ["c1"],
        "RN-LOOP-005",
        f"function outputs sent: {outputs}",
    )
    expect(
        outputs[0].get("output") == parts,
        "RN-LOOP-005",
        f"the function returned {parts!r} but its function_call_output carries {outputs[0].get('output')!r}",
    )


def _mcp_then_function() -> Any:
    return (
        CassetteBuilder("mcp-beside-function")
        .turn(mcp_approval_request("apr_1", server_label="docs", name="search", arguments={"q": "x"}))
        .turn(
            mcp_call("mcp_1", server_label="docs", name="search", arguments={"q": "x"}, approval_request_id="apr_1"),
            function_call("lookup", {"reference": "c1"}, call_id="c1"),
        )
        .turn(message("Done."))
        .build()
    )


@pytest.mark.clause("RN-MCP-017")
@pytest.mark.parametrize("mode", modes())
def test_no_function_output_for_remote_mcp_items(mode: Mode) -> None:
    setup = mcp_setup(approve_mcp=lambda request: True)
    outcome = ScenarioRun(_mcp_then_function(), setup, mode).run().finished("RN-MCP-017")
    expect(len(outcome.requests) == 3, "RN-MCP-017", f"requests sent: {len(outcome.requests)}")
    for index in range(1, len(outcome.requests)):
        answered = [
            item.get("call_id") for item in outcome.input_of(index) if item.get("type") == "function_call_output"
        ]
        expect(
            answered == ([] if index == 1 else ["c1"]),
            "RN-MCP-017",
            f"request {index} sends function_call_output items for {answered}; only the local function c1 may "
            "have one (the MCP approval request and the mcp_call are answered by the API)",
        )
    replayed = [item for item in outcome.input_of(2) if item.get("type") == "mcp_call"]
    expect(
        [(item.get("id"), item.get("output")) for item in replayed] == [("mcp_1", "ok")],
        "RN-MCP-017",
        f"the mcp_call with the API's own output is not in the next request as given: {replayed}",
    )


@pytest.mark.clause("RN-MCP-017")
@pytest.mark.parametrize("mode", modes())
def test_no_function_output_for_an_unapproved_mcp_request(mode: Mode) -> None:
    # Refusing the request answers it with an approval response, never with a function output.
    setup = mcp_setup(approve_mcp=lambda request: False)
    outcome = run("mcp-approval", setup, mode)
    sent = [item for body in outcome.bodies for item in body.get("input", []) if isinstance(item, dict)]
    outputs = [item for item in sent if item.get("type") == "function_call_output"]
    expect(outputs == [], "RN-MCP-017", f"function_call_output sent for an MCP approval request: {outputs}")
