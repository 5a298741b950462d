"""An application loop: the read-only reference toolset under the SDK's ResponsesToolRunner.

The Responses API is the kit's fake transport, so the test checks what the runner sent back to the model: the
driver's structured read of the real page, with no private values.
"""

from __future__ import annotations

import json

import pytest
from openai.lib.responses_tool_runner import ResponsesToolRunner

from conformance.cassette_builder import CassetteBuilder, function_call, message
from conformance.fake_responses import CassetteTransport, fake_client
from reference.toolsets import read_only_browser

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


def test_runner_sends_the_driver_read_back_to_the_model(open_driver, env) -> None:
    driver = open_driver("private.html")
    cassette = (
        CassetteBuilder("reference-read-only")
        .turn(function_call("browser_read_page", {"filter": "all", "tab_id": None}, call_id="c1"))
        .turn(message("The page is a sign-in form."))
        .build()
    )
    transport = CassetteTransport(cassette, match="none")
    with fake_client(transport) as client:
        response = ResponsesToolRunner(browser=read_only_browser(driver)).run(
            client, {"model": "gpt-test", "input": "What is on the page?", "store": False}, max_steps=3
        )
    assert response.output_text == "The page is a sign-in form."
    assert transport.divergence is None and transport.served == 2
    second = transport.sent[1].body
    assert second is not None
    outputs = [item for item in second["input"] if item.get("type") == "function_call_output"]
    payload = json.loads(outputs[0]["output"][0]["text"])
    assert payload["ok"] is True
    labels = [element["label"] for element in payload["result"]["elements"]]
    assert labels == ["Username", "Password", "One-time code", "Sign in"]
    assert "pw-Zebra-7731" not in json.dumps(second) and "481913" not in json.dumps(second)
