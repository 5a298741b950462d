"""The desktop model's judgements on recorded events, without a desktop: what each difference blames.

Computer exploration (conformance.explore.computer_*) compares the recorder page's record after every action with
its model of the desktop; these tests hand it records directly, so a wrong blame shows in the quick tier.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import ClauseViolation
from conformance.explore import render
from conformance.explore.computer_machine import KINDS, draw
from conformance.explore.computer_model import (
    GRID,
    DesktopModel,
    RestBlame,
    held_buttons,
    judge_rest,
    judge_text,
    keys_left_down,
)
from conformance.explore.computer_steps import Click, Drag, Keypress, Move

BLAME = RestBlame("CO-CLICK-001", "CO-CLICK-003")


def model(pointer: str | None = "B2") -> DesktopModel:
    return DesktopModel({name: (700 + 40 * index, 300) for index, name in enumerate(GRID)}, 1.5, pointer)


def barrier(x: float, y: float, buttons: int = 0, **modifiers: bool) -> dict[str, Any]:
    return {"type": "pointermove", "x": x, "y": y, "buttons": buttons, **modifiers}


def blamed(action: Any) -> str:
    with pytest.raises(ClauseViolation) as caught:
        action()
    return caught.value.clause_id


def test_a_desktop_at_rest_where_the_model_has_the_pointer_passes() -> None:
    at = model()
    x, y = at.point("B2")
    judge_rest(at, [], barrier(x + 1, y), "step", BLAME)
    judge_rest(model(None), [], barrier(5, 5), "step", BLAME)  # no pointer action yet: its place is not judged


def test_each_thing_left_held_blames_its_clause() -> None:
    at = model()
    x, y = at.point("B2")
    assert blamed(lambda: judge_rest(at, [], barrier(x, y, buttons=1), "step", BLAME)) == "CO-CLICK-001"
    assert blamed(lambda: judge_rest(at, [], barrier(x, y, shift=True), "step", BLAME)) == "CO-CLICK-003"
    pressed = [{"type": "keydown", "key": "a", "code": "KeyA"}]
    assert blamed(lambda: judge_rest(at, pressed, barrier(x, y), "step", BLAME)) == "CO-CLICK-003"
    # The pointer five pixels from where the action left it: beyond the tolerance and the barrier's nudge.
    assert blamed(lambda: judge_rest(at, [], barrier(x + 5, y), "step", BLAME)) == "CO-CLICK-001"


def test_held_state_is_read_from_the_page_record() -> None:
    assert held_buttons({"buttons": 5}) == ["left", "wheel"]
    events = [
        {"type": "keydown", "key": "Shift", "code": "ShiftLeft"},
        {"type": "keydown", "key": "a", "code": "KeyA"},
        {"type": "keydown", "key": "a", "code": "KeyA", "repeat": True},
        {"type": "keyup", "key": "a", "code": "KeyA"},
    ]
    assert keys_left_down(events) == ["Shift"]


def test_text_other_than_the_text_typed_blames_the_action() -> None:
    at = model()
    typed = [{"type": "input", "inputType": "insertText", "data": "h"}, {"type": "input", "inputType": "insertText"}]
    judge_text(at, [{"type": "input", "inputType": "insertText", "data": "hi"}], "hi", "type", "CO-TYPE-001")
    assert at.typed == "hi"
    assert blamed(lambda: judge_text(at, typed, "hi", "type", "CO-TYPE-001")) == "CO-TYPE-001"
    deleted = [{"type": "input", "inputType": "deleteContentBackward"}]
    assert blamed(lambda: judge_text(at, deleted, "", "keypress", "CO-KEY-001")) == "CO-KEY-001"


def test_drawn_steps_read_as_the_certificate_numbers_them() -> None:
    steps = [draw("drag", 0, [0, 6], 0), draw("click", 3, [0], 4), draw("move", 0, [0], 0)]
    assert steps == [Drag(("A1", "B2")), Click("D1", "left", ("shift",)), Move("A1")]
    assert render.numbered(steps) == [
        "1. drag(path=A1>B2)",
        "2. click(at=D1, button=left, keys=[shift])",
        "3. move(to=A1)",
    ]
    # A drag never stands still: a path of one repeated point still goes somewhere.
    assert draw("drag", 2, [2], 0) == Drag(("C1", "D1"))
    # Every kind draws a step, and the plainest numbers draw a move to the first point.
    assert {type(draw(kind, 0, [0], 0)).__name__ for kind in KINDS} >= {"Move", "Click", "Keypress", "TypeText"}
    assert draw("keypress", 0, [0], 0) == Keypress(("ctrl", "alt", "z"))
