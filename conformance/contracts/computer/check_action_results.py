"""Action methods return nothing: only screenshot() has a result.

spec/002 "Computer driver contract": each action method gets the generated action object and returns no value
(None in Python; undefined, or a promise of it, in Node) and raises when it cannot act. Each action here runs
through the SDK's toolset, as the model's calls do, in the page's free area, and what the driver's own method
returned is judged.
"""

from __future__ import annotations

import pytest
from openai.types.responses import computer_action as actions

from conformance.assertions import expect
from conformance.harness.computer_subject import ComputerSubject

from ._support import click, free_area_point, take_shot

ACTIONS = ["click", "double_click", "drag", "keypress", "move", "scroll", "type", "wait"]


def _action(subject: ComputerSubject, name: str) -> object:
    shot = take_shot(subject)
    x, y = shot.to_shot(*free_area_point(subject.env, 0.5, 0.8))
    far_x, far_y = shot.to_shot(*free_area_point(subject.env, 0.6, 0.85))
    return {
        "click": click(x, y),
        "double_click": actions.DoubleClick(type="double_click", x=x, y=y),
        "drag": actions.Drag(type="drag", path=[{"x": x, "y": y}, {"x": far_x, "y": far_y}]),  # type: ignore[list-item]
        "keypress": actions.Keypress(type="keypress", keys=["shift"]),
        "move": actions.Move(type="move", x=far_x, y=far_y),
        "scroll": actions.Scroll(type="scroll", x=x, y=y, scroll_x=0, scroll_y=40),
        "type": actions.Type(type="type", text="r"),
        "wait": actions.Wait(type="wait"),
    }[name]


@pytest.mark.clause("CO-SHAPE-003")
@pytest.mark.parametrize("name", ACTIONS)
def test_action_method_returns_no_value(computer_subject: ComputerSubject, name: str) -> None:
    returned = computer_subject.act(_action(computer_subject, name))  # type: ignore[arg-type]
    expect(
        returned is None,
        "CO-SHAPE-003",
        f"{name}() returned {type(returned).__name__} {returned!r:.200}; an action method returns no value",
    )
