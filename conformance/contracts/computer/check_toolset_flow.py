"""Safety-check approval, before_action and cancellation, through the SDK's computer helper, seen on the desktop.

The helper is the SDK's; what these checks add is the desktop's view: a refused or cancelled call must leave
no trace in the page's event log, and an approved one must reach it once per action, in order.
"""

from __future__ import annotations

from typing import Any

import pytest
from openai.lib.computer import ComputerUseError
from openai.types.responses import ResponseComputerToolCall

from conformance.assertions import expect
from conformance.harness.computer_environment import ComputerEnvironment
from conformance.harness.computer_subject import ComputerSubject

from ._support import describe, near, of_type, points, take_shot

SAFETY_CHECK = {"id": "sc_kit_1", "code": "malicious_instructions", "message": "kit safety check"}


def _call(subject: ComputerSubject, environment: ComputerEnvironment, *, checks: bool) -> ResponseComputerToolCall:
    shot = take_shot(subject)
    first, second = shot.to_shot(*points(environment)[1]), shot.to_shot(*points(environment)[3])
    return ResponseComputerToolCall.model_validate(
        {
            "id": "cu_kit_1",
            "call_id": "call_kit_1",
            "type": "computer_call",
            "status": "completed",
            "pending_safety_checks": [SAFETY_CHECK] if checks else [],
            "actions": [
                {"type": "click", "x": first[0], "y": first[1], "button": "left"},
                {"type": "click", "x": second[0], "y": second[1], "button": "left"},
                {"type": "type", "text": "kit"},
            ],
        }
    )


def _clicked(events: list[dict[str, Any]], points: list[tuple[int, int]]) -> bool:
    """The page saw exactly one click near each point, in this order (3 px covers a half-scale screenshot)."""
    clicks = of_type(events, "click")
    return len(clicks) == len(points) and all(
        near(click, x, y, 3) for click, (x, y) in zip(clicks, points, strict=True)
    )


def _input_events(environment: ComputerEnvironment, mark: int) -> list[dict[str, Any]]:
    return of_type(environment.quiet(mark), "mousedown", "mouseup", "click", "keydown", "input")


@pytest.mark.clause("CO-FLOW-001")
@pytest.mark.parametrize("approval", ["missing", "declined", "truthy-not-True"])
def test_unapproved_safety_checks_reach_no_desktop(computer_subject: ComputerSubject, approval: str) -> None:
    call = _call(computer_subject, computer_subject.env, checks=True)
    options: dict[str, Any] = {}
    if approval == "declined":
        options["approve_safety_checks"] = lambda _call: False
    elif approval == "truthy-not-True":
        options["approve_safety_checks"] = lambda _call: 1
    mark = computer_subject.env.mark()
    with pytest.raises(ComputerUseError):
        computer_subject.execute(call, **options)
    events = _input_events(computer_subject.env, mark)
    expect(not events, "CO-FLOW-001", f"an unapproved call ({approval}) reached the desktop: {describe(events)}")


@pytest.mark.clause("CO-FLOW-002")
def test_approved_call_reaches_the_desktop_once_in_order(computer_subject: ComputerSubject) -> None:
    call = _call(computer_subject, computer_subject.env, checks=True)
    mark = computer_subject.env.mark()
    output = computer_subject.execute(call, approve_safety_checks=lambda _call: True)
    events = _input_events(computer_subject.env, mark)
    # Chromium may hand key events to the page before earlier mouse events (mouse input waits for hit
    # testing), so order is compared within each kind of input: the two clicks, then the typed characters.
    first, second = points(computer_subject.env)[1], points(computer_subject.env)[3]
    expect(
        _clicked(events, [first, second]),
        "CO-FLOW-002",
        f"expected a click at {first} then one at {second}, got {describe(events)}",
    )
    expect(
        computer_subject.env.typed_since(mark) == "kit",
        "CO-FLOW-002",
        f"the page received the text {computer_subject.env.typed_since(mark)!r}, not 'kit'",
    )
    screenshot = output.get("output", {})
    has_source = bool(screenshot.get("image_url") or screenshot.get("file_id"))
    expect(
        screenshot.get("type") == "computer_screenshot" and has_source,
        "CO-FLOW-002",
        f"output has no screenshot: {str(output)[:120]}",
    )
    expect(
        output.get("acknowledged_safety_checks") == [SAFETY_CHECK],
        "CO-FLOW-002",
        f"acknowledged checks are {output.get('acknowledged_safety_checks')}",
    )


@pytest.mark.clause("CO-FLOW-003")
def test_before_action_sees_every_action_and_a_refusal_stops_the_rest(computer_subject: ComputerSubject) -> None:
    call = _call(computer_subject, computer_subject.env, checks=False)
    seen: list[str] = []

    def approve_all(action: Any) -> bool:
        seen.append(action.type)
        return True

    computer_subject.execute(call, before_action=approve_all)
    expect(
        seen == ["click", "click", "type", "screenshot"],
        "CO-FLOW-003",
        f"before_action saw {seen}, expected two clicks, the type and the final screenshot",
    )

    def refuse_typing(action: Any) -> bool:
        return bool(action.type != "type")

    mark = computer_subject.env.mark()
    with pytest.raises(ComputerUseError):
        computer_subject.execute(call, before_action=refuse_typing)
    events = _input_events(computer_subject.env, mark)
    expect(
        _clicked(events, [points(computer_subject.env)[1], points(computer_subject.env)[3]]),
        "CO-FLOW-003",
        f"the two approved clicks before the refusal should each have happened once: {describe(events)}",
    )
    expect(
        not of_type(events, "input", "keydown"),
        "CO-FLOW-003",
        f"the refused type action reached the desktop: {describe(events)}",
    )


@pytest.mark.clause("CO-FLOW-004")
def test_nothing_reaches_the_desktop_after_cancellation(computer_subject: ComputerSubject) -> None:
    call = _call(computer_subject, computer_subject.env, checks=False)
    stopped = [False]

    proposed = [0]

    def stop_after_the_first_click(action: Any) -> bool:
        # Approve everything, but report the run cancelled from the moment the second action is proposed.
        proposed[0] += 1
        if proposed[0] > 1:
            stopped[0] = True
        return True

    mark = computer_subject.env.mark()
    with pytest.raises(ComputerUseError):
        computer_subject.execute(call, before_action=stop_after_the_first_click, cancelled=lambda: stopped[0])
    events = _input_events(computer_subject.env, mark)
    expect(
        _clicked(events, [points(computer_subject.env)[1]]),
        "CO-FLOW-004",
        f"only the click before cancelling should have happened: {describe(events)}",
    )
    expect(
        not of_type(events, "input", "keydown"),
        "CO-FLOW-004",
        f"text was typed after the run was cancelled: {describe(events)}",
    )
