"""The computer toolset (spec/002 "Computer driver contract", "Approve actions and own the session";
spec/000 "Mix browser, computer, and ordinary functions")."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect
from conformance.contracts.toolset._toolsets import computer_call, execute, expect_stop
from conformance.flavours import Flavour
from conformance.members import COMPUTER_METHODS
from conformance.probes import PIXEL_DATA_URL, Act, Script, computer_probe
from conformance.rig import computer_toolset

# One valid native action per type (screenshot excluded: it is the capture that follows every batch).
ACTIONS: dict[str, dict[str, Any]] = {
    "click": {"type": "click", "x": 10, "y": 20, "button": "left"},
    "double_click": {"type": "double_click", "x": 11, "y": 21},
    "drag": {"type": "drag", "path": [{"x": 1, "y": 1}, {"x": 9, "y": 9}]},
    "keypress": {"type": "keypress", "keys": ["CTRL", "A"]},
    "move": {"type": "move", "x": 12, "y": 22},
    "scroll": {"type": "scroll", "x": 13, "y": 23, "scroll_x": 0, "scroll_y": 120},
    "type": {"type": "type", "text": "hello"},
    "wait": {"type": "wait"},
}
BATCH = [ACTIONS[name] for name in COMPUTER_METHODS if name in ACTIONS]
CHECK = {"id": "sc-1", "code": "malicious_instructions", "message": "Check the page first."}


def _toolset(flavour: Flavour, **options: Any) -> tuple[Any, Any]:
    driver = computer_probe(flavour, **options)
    return computer_toolset(flavour, driver), driver


def _fields(action: Any) -> dict[str, Any]:
    # A null field is an absent one on either side: the Python SDK's models dump without them, and the Node SDK
    # fills the nullable ``keys`` of a double click with null.
    if hasattr(action, "model_dump"):
        dumped: dict[str, Any] = action.model_dump(exclude_none=True)
        return dumped
    return {key: value for key, value in dict(action).items() if value is not None}


@pytest.mark.clause("TS-COMP-001")
@pytest.mark.parametrize("missing", COMPUTER_METHODS)
def test_all_nine_methods_are_required(flavour: Flavour, missing: str) -> None:
    driver = computer_probe(flavour, methods=[name for name in COMPUTER_METHODS if name != missing])
    with pytest.raises((TypeError, ValueError)):
        computer_toolset(flavour, driver)


@pytest.mark.clause("TS-COMP-002")
def test_every_action_runs_once_in_order_then_the_screenshot(flavour: Flavour) -> None:
    toolset, driver = _toolset(flavour)
    output = execute(toolset, computer_call(BATCH))
    names = driver.log.names()
    expect(names == [*ACTIONS, "screenshot"], "TS-COMP-002", f"driver calls were {names}")
    for call, sent in zip(driver.log.calls, BATCH, strict=False):
        expect(_fields(call.argument) == sent, "TS-COMP-002", f"{call.name} received {_fields(call.argument)}")
    expect(
        output.get("output", {}).get("image_url") == PIXEL_DATA_URL,
        "TS-COMP-002",
        "the output does not carry the final screenshot",
    )


@pytest.mark.clause("TS-COMP-002")
@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_single_legacy_action_runs_once_then_the_screenshot(flavour: Flavour, action: str) -> None:
    from openai.types.responses import ResponseComputerToolCall

    toolset, driver = _toolset(flavour)
    call = ResponseComputerToolCall.model_validate(
        {
            "type": "computer_call",
            "id": "item-1",
            "call_id": "cc-1",
            "status": "completed",
            "pending_safety_checks": [],
            "action": ACTIONS[action],
        }
    )
    execute(toolset, call)
    expect(driver.log.names() == [action, "screenshot"], "TS-COMP-002", f"driver calls were {driver.log.names()}")


@pytest.mark.clause("TS-COMP-002")
def test_screenshot_only_call_captures_once(flavour: Flavour) -> None:
    toolset, driver = _toolset(flavour)
    execute(toolset, computer_call([{"type": "screenshot"}]))
    expect(driver.log.names() == ["screenshot"], "TS-COMP-002", f"driver calls were {driver.log.names()}")


@pytest.mark.clause("TS-COMP-003")
def test_safety_checks_approved_before_any_action(flavour: Flavour) -> None:
    toolset, driver = _toolset(flavour)
    approve = driver.log.callback("approve_safety_checks", flavour=flavour)
    output = execute(toolset, computer_call(BATCH[:2], checks=[CHECK]), approve_safety_checks=approve)
    names = driver.log.names()
    expect(
        names[0] == "approve_safety_checks" and names.count("approve_safety_checks") == 1,
        "TS-COMP-003",
        f"approval was not asked once before the actions: {names}",
    )
    seen = driver.log.of("approve_safety_checks")[0].argument
    checks = getattr(seen, "pending_safety_checks", None)
    expect(
        checks is not None and [c.id for c in checks] == ["sc-1"],
        "TS-COMP-003",
        "the approval callback did not receive the call with its pending checks",
    )
    acknowledged = output.get("acknowledged_safety_checks")
    expect(
        isinstance(acknowledged, list) and [item.get("id") for item in acknowledged] == ["sc-1"],
        "TS-COMP-003",
        f"approved checks were not acknowledged: {acknowledged}",
    )


REFUSALS: dict[str, object] = {
    "false": False,
    "one": 1,
    "yes": "yes",
    "none": None,
    "raises": RuntimeError("approval down"),
}


@pytest.mark.clause("TS-COMP-003")
@pytest.mark.parametrize("reply", [*sorted(REFUSALS), "missing"])
def test_unapproved_safety_checks_stop_before_any_action(flavour: Flavour, reply: str) -> None:
    toolset, driver = _toolset(flavour)
    options = {}
    if reply != "missing":
        options["approve_safety_checks"] = driver.log.callback(
            "approve_safety_checks", REFUSALS[reply], flavour=flavour
        )
    with expect_stop("TS-COMP-003", "unapproved safety checks"):
        execute(toolset, computer_call(BATCH, checks=[CHECK]), **options)
    acted = [name for name in driver.log.names() if name != "approve_safety_checks"]
    expect(acted == [], "TS-COMP-003", f"unapproved safety checks still ran {acted}")


@pytest.mark.clause("TS-COMP-004")
def test_before_action_precedes_every_action_and_the_screenshot(flavour: Flavour) -> None:
    toolset, driver = _toolset(flavour)
    before = driver.log.callback("before_action", flavour=flavour)
    execute(toolset, computer_call(BATCH), before_action=before)
    expected: list[str] = []
    for name in [*ACTIONS, "screenshot"]:
        expected += ["before_action", name]
    expect(driver.log.names() == expected, "TS-COMP-004", f"calls were {driver.log.names()}")
    last = driver.log.of("before_action")[-1].argument
    expect(
        getattr(last, "type", None) == "screenshot", "TS-COMP-004", "before_action was not shown the final screenshot"
    )


@pytest.mark.clause("TS-COMP-004")
@pytest.mark.parametrize("reply", sorted(REFUSALS))
@pytest.mark.parametrize("declined_at", [1, 3, 9], ids=["first", "third", "final-screenshot"])
def test_declined_before_action_stops_everything_after(flavour: Flavour, reply: str, declined_at: int) -> None:
    toolset, driver = _toolset(flavour)
    answers = [True] * (declined_at - 1) + [REFUSALS[reply]]
    before = driver.log.callback("before_action", Script(*answers), flavour=flavour)
    with expect_stop("TS-COMP-004", "a declined before_action"):
        execute(toolset, computer_call(BATCH), before_action=before)
    acted = [name for name in driver.log.names() if name != "before_action"]
    expect(
        acted == [*ACTIONS, "screenshot"][: declined_at - 1],
        "TS-COMP-004",
        f"declining approval #{declined_at} with {REFUSALS[reply]!r} still ran {acted}",
    )


SCREENSHOTS_OK: dict[str, dict[str, Any]] = {
    "url": {"type": "computer_screenshot", "image_url": PIXEL_DATA_URL},
    "file": {"type": "computer_screenshot", "file_id": "file-1"},
    "both": {"type": "computer_screenshot", "image_url": PIXEL_DATA_URL, "file_id": "file-1"},
}
SCREENSHOTS_BAD: dict[str, object] = {
    "input-image": {"type": "input_image", "image_url": PIXEL_DATA_URL},
    "no-source": {"type": "computer_screenshot"},
    "blank-url": {"type": "computer_screenshot", "image_url": "  "},
    "empty-file": {"type": "computer_screenshot", "file_id": ""},
    "string": PIXEL_DATA_URL,
    "none": None,
}


@pytest.mark.clause("TS-COMP-005")
@pytest.mark.parametrize("case", sorted(SCREENSHOTS_OK))
def test_valid_screenshot_is_returned(flavour: Flavour, case: str) -> None:
    toolset, _ = _toolset(flavour, replies={"screenshot": SCREENSHOTS_OK[case]})
    output = execute(toolset, computer_call([{"type": "wait"}]))
    image = {key: value for key, value in output.get("output", {}).items() if value is not None}
    expect(image == SCREENSHOTS_OK[case], "TS-COMP-005", f"screenshot {case} came back as {image}")


@pytest.mark.clause("TS-COMP-005")
@pytest.mark.parametrize("case", sorted(SCREENSHOTS_BAD))
def test_invalid_screenshot_stops(flavour: Flavour, case: str) -> None:
    toolset, _ = _toolset(flavour, replies={"screenshot": SCREENSHOTS_BAD[case]})
    with expect_stop("TS-COMP-005", f"screenshot {case}"):
        execute(toolset, computer_call([{"type": "wait"}]))


@pytest.mark.clause("TS-COMP-006")
@pytest.mark.parametrize("failing", ["click", "keypress", "wait"])
def test_failing_action_is_not_retried(flavour: Flavour, failing: str) -> None:
    toolset, driver = _toolset(flavour, replies={failing: OSError("display gone")})
    with expect_stop("TS-COMP-006", f"a failing {failing}"):
        execute(toolset, computer_call(BATCH))
    names = driver.log.names()
    expect(names.count(failing) == 1, "TS-COMP-006", f"{failing} ran {names.count(failing)} times")
    expect(names[-1] == failing, "TS-COMP-006", f"actions after the failure still ran: {names}")


@pytest.mark.clause("TS-COMP-007")
@pytest.mark.parametrize("declares", [True, False], ids=["declares", "plain"])
def test_cancelled_passed_only_when_declared(flavour: Flavour, declares: bool) -> None:
    toolset, driver = _toolset(flavour, declares_cancelled=declares)
    approve = driver.log.callback(
        "approve_safety_checks",
        flavour=flavour,
        declares_cancelled=declares,
    )
    before = driver.log.callback("before_action", flavour=flavour, declares_cancelled=declares)
    execute(
        toolset,
        computer_call(BATCH[:2], checks=[CHECK]),
        approve_safety_checks=approve,
        before_action=before,
        cancelled=lambda: False,
    )
    flags = {call.name: call.cancelled_passed for call in driver.log.calls}
    expect(
        set(flags) == {"approve_safety_checks", "before_action", "click", "double_click", "screenshot"},
        "TS-COMP-007",
        f"unexpected calls {sorted(flags)}",
    )
    expect(
        all(flag is declares for flag in flags.values()),
        "TS-COMP-007",
        f"cancelled passed={flags} though callables {'do' if declares else 'do not'} declare it",
    )


@pytest.mark.clause("TS-COMP-008")
@pytest.mark.parametrize("which", ["approve_safety_checks", "before_action"])
def test_callbacks_cannot_change_the_action(flavour: Flavour, which: str) -> None:
    def edit(given: Any) -> bool:
        action = given.actions[0] if which == "approve_safety_checks" else given
        action.x = 999
        action.y = 999
        return True

    async def edit_async(given: Any) -> bool:
        return edit(given)

    toolset, driver = _toolset(flavour)
    hook = driver.log.callback(which, Act(edit_async if flavour == "async" else edit), flavour=flavour)
    execute(
        toolset,
        computer_call([ACTIONS["click"]], checks=[CHECK]),
        **{which: hook},
        **(
            {"approve_safety_checks": driver.log.callback("approve", flavour=flavour)}
            if which == "before_action"
            else {}
        ),
    )
    received = _fields(driver.log.of("click")[0].argument)
    expect(received == ACTIONS["click"], "TS-COMP-008", f"{which} edits reached the driver: {received}")


@pytest.mark.clause("TS-COMP-009")
@pytest.mark.parametrize("stop_after", ["click", "double_click", "wait"])
def test_no_action_after_a_reported_cancellation(flavour: Flavour, stop_after: str) -> None:
    stopped: list[bool] = []

    def stop(_: object) -> None:
        stopped.append(True)

    toolset, driver = _toolset(flavour, replies={stop_after: Act(stop)})
    with expect_stop("TS-COMP-009", "a cancelled computer call"):
        execute(toolset, computer_call(BATCH), cancelled=lambda: bool(stopped))
    names = driver.log.names()
    expect(names[-1] == stop_after, "TS-COMP-009", f"actions ran after the cancellation: {names}")
