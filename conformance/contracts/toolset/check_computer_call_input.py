"""The Node ComputerToolset's call input: modern calls without a checklist, and drivers answering plainly.

spec/002 "Computer driver contract": in Node, ComputerToolset.execute() takes native calls and modern calls with an
actions array that leave out pending_safety_checks; for that omission the approval callbacks see a detached call
with an empty checklist; and Node driver methods may answer with a plain value or a promise. These are the Node
SDK's forms (the Python toolset takes the generated call model, and Python's flavours are TS-FLAV-001/002).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from conformance.assertions import expect, not_implemented, violation
from conformance.flavours import Flavour
from conformance.members import COMPUTER_METHODS
from conformance.probes import PIXEL_DATA_URL, computer_probe
from conformance.rig import computer_toolset

CLICK: dict[str, Any] = {"type": "click", "x": 3, "y": 4, "button": "left"}
SCREENSHOT: dict[str, Any] = {"type": "computer_screenshot", "image_url": PIXEL_DATA_URL}


def _modern(call_id: str = "cc-1") -> dict[str, Any]:
    """A modern computer call (an actions array) that leaves out pending_safety_checks."""
    return {
        "type": "computer_call",
        "id": f"item-{call_id}",
        "call_id": call_id,
        "status": "completed",
        "actions": [dict(CLICK)],
    }


def _node_only(flavour: Flavour, what: str) -> None:
    if flavour != "node":
        not_implemented(
            f"{what} is the Node SDK's form (ComputerCallInput, plain answers); Python takes the call model"
        )


def _screenshot_output(output: Any, call_id: str) -> bool:
    return (
        isinstance(output, dict)
        and output.get("type") == "computer_call_output"
        and output.get("call_id") == call_id
        and isinstance(output.get("output"), dict)
        and output["output"].get("type") == "computer_screenshot"
    )


@pytest.mark.clause("TS-COMP-015")
def test_modern_call_without_checklist_is_executed(flavour: Flavour) -> None:
    _node_only(flavour, "a computer call without pending_safety_checks")
    driver = computer_probe(flavour)
    toolset: Any = computer_toolset(flavour, driver)
    call = _modern()
    try:
        output = toolset.execute(call)
    except Exception as error:
        violation("TS-COMP-015", f"a modern call without pending_safety_checks was refused: {error}")
    expect(
        driver.log.names() == ["click", "screenshot"],
        "TS-COMP-015",
        f"the call's action did not run as given: {driver.log.names()}",
    )
    expect(_screenshot_output(output, "cc-1"), "TS-COMP-015", f"the call's output: {output!r:.300}")
    expect(call == _modern(), "TS-COMP-015", f"executing the call changed the caller's object: {call}")


@pytest.mark.clause("TS-COMP-016")
def test_callbacks_get_a_detached_call_with_an_empty_checklist(flavour: Flavour) -> None:
    _node_only(flavour, "a computer call without pending_safety_checks")
    from conformance.node.sdk.callbacks import node_callback

    driver = computer_probe(flavour)
    toolset: Any = computer_toolset(flavour, driver)
    received: list[dict[str, Any]] = []

    def before_action(action: Any, call: Any) -> bool:
        received.append(copy.deepcopy(dict(call)))
        # Edits to what the callback received must not reach the driver or the output.
        checks = call.get("pending_safety_checks")
        if isinstance(checks, list):
            checks.append({"id": "sc-edit", "code": "edited", "message": "Added by the callback."})
        call["actions"][0]["x"] = 99
        return True

    sdk = toolset.sdk
    output = toolset.toolset.call(
        "execute", _modern(), {"beforeAction": node_callback(sdk, before_action, 2, context_at=2, edits=True)}
    )
    sdk.settle()
    expect(bool(received), "TS-COMP-016", "beforeAction was never called for the call's action")
    checklists = [call.get("pending_safety_checks") for call in received]
    expect(
        all(checklist == [] for checklist in checklists),
        "TS-COMP-016",
        f"the call beforeAction received carries the checklist {checklists}, not an empty one",
    )
    clicks = [dict(call.args[0]) for call in driver.log.calls if call.name == "click"]  # type: ignore[call-overload]
    expect(
        clicks == [CLICK],
        "TS-COMP-016",
        f"an edit to the call beforeAction received reached the driver: {clicks}",
    )
    expect(_screenshot_output(output, "cc-1"), "TS-COMP-016", f"the call's output: {output!r:.300}")


@pytest.mark.clause("TS-COMP-017")
def test_plain_answers_from_a_node_computer_driver(flavour: Flavour) -> None:
    _node_only(flavour, "a driver answering with plain values beside promises")
    from conformance.node.sdk.broker import shared_sdk

    sdk = shared_sdk()
    replies: dict[str, Any] = {name: None for name in COMPUTER_METHODS if name != "screenshot"}
    made = sdk.invoke("plainObject", {"replies": {**replies, "screenshot": SCREENSHOT}})
    try:
        toolset = sdk.construct("ComputerToolset", made["object"])
        output = toolset.call("execute", {**_modern(), "pending_safety_checks": []}, {})
    except Exception as error:
        violation("TS-COMP-017", f"a driver answering with plain values was refused: {error}")
    calls = list(sdk.invoke("get", {"target": made["log"], "name": "calls"}))
    expect(calls == ["click", "screenshot"], "TS-COMP-017", f"the plain driver was called for {calls}")
    expect(
        _screenshot_output(output, "cc-1") and output["output"].get("image_url") == PIXEL_DATA_URL,
        "TS-COMP-017",
        f"the plain screenshot did not come back as the output: {output!r:.300}",
    )
