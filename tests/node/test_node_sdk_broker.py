"""The Node SDK broker (conformance/node/sdk/broker.py and js/sdk.mjs): values, errors and callbacks crossing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai.lib.browser import BrowserError

from conformance.contracts.runner._node_scenario import with_added_events
from conformance.contracts.toolset._toolsets import VALID_ARGUMENTS, function_call, payload
from conformance.node.sdk.broker import NodeSdk, NodeToolRunnerError
from conformance.node.sdk.toolsets import NodeBrowserToolset
from conformance.probes import Act, browser_probe

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.node]


@pytest.fixture(autouse=True)
def _shared(sdk: NodeSdk, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("conformance.node.sdk.toolsets.shared_sdk", lambda: sdk)


def test_a_python_browser_error_reaches_the_model_as_the_node_sdk_reports_it(sdk: NodeSdk) -> None:
    driver = browser_probe("node", ["click"], replies={"click": BrowserError("The element is gone.")})
    toolset = NodeBrowserToolset(driver, members=["click"], confirm=lambda *_: True)
    report = payload(toolset.execute(function_call("click", VALID_ARGUMENTS["click"])))
    assert report["ok"] is False and report["error"] == "The element is gone."


def test_a_callback_may_call_back_into_node_without_deadlock(sdk: NodeSdk) -> None:
    # Mid-click the driver uses the same toolset (refused as busy, no callback needed) and another toolset, whose
    # driver calls must be served while the first callback still waits.
    seen: list[Any] = []
    holder: dict[str, NodeBrowserToolset] = {}
    other = NodeBrowserToolset(browser_probe("node", ["get_page_text"]), members=["get_page_text"])

    def reenter(_: object) -> None:
        try:
            holder["toolset"].execute(function_call("get_page_text", {"tab_id": None}, call_id="call-2"))
        except Exception as error:
            seen.append(error)
        seen.append(payload(other.execute(function_call("get_page_text", {"tab_id": None}, call_id="call-3"))))

    driver = browser_probe("node", ["click", "get_page_text"], replies={"click": Act(reenter)})
    holder["toolset"] = NodeBrowserToolset(driver, members=["click", "get_page_text"], confirm=lambda *_: True)
    report = payload(holder["toolset"].execute(function_call("click", VALID_ARGUMENTS["click"])))
    assert report["ok"] is True
    assert len(seen) == 2 and "busy" in str(seen[0]).lower()
    assert seen[1]["ok"] is True


def test_a_runner_error_keeps_its_receipts(sdk: NodeSdk) -> None:
    runner = sdk.construct("ResponsesToolRunner", {"functions": []})

    def fetch(request: dict[str, Any]) -> dict[str, Any]:
        return {"status": 500, "headers": {"content-type": "application/json"}, "body": "{}", "broken": False}

    client = sdk.client(fetch, maxRetries=0)
    with pytest.raises(NodeToolRunnerError) as raised:
        runner.call("run", client, {"model": "m", "input": "hi"}, {})
    assert raised.value.attempted_call_ids == () and raised.value.completed_call_ids == ()


def test_an_item_is_announced_before_its_first_done_event() -> None:
    done = {"type": "response.output_item.done", "output_index": 0, "item": {"type": "message", "status": "completed"}}
    body = f"event: response.output_item.done\ndata: {json.dumps(done)}\n\n"
    events = [json.loads(line[6:]) for line in with_added_events(body).splitlines() if line.startswith("data: ")]
    assert [event["type"] for event in events] == ["response.output_item.added", "response.output_item.done"]
    assert events[0]["item"]["status"] == "in_progress"
    # An item already announced is left alone.
    assert with_added_events(with_added_events(body)) == with_added_events(body)
