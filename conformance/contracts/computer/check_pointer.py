"""Pointer actions land where the screenshot says, with the right button, click count, path and keys."""

from __future__ import annotations

import pytest
from openai.types.responses import computer_action as actions

from conformance.assertions import expect
from conformance.harness.computer_subject import ComputerSubject

from ._support import click, describe, drag_path, near, of_type, points, take_shot

# The DOM's MouseEvent.button for each computer-tool button name.
DOM_BUTTON = {"left": 0, "wheel": 1, "right": 2, "back": 3, "forward": 4}


@pytest.mark.clause("CO-CLICK-001")
def test_click_lands_once_at_the_point(computer_subject: ComputerSubject) -> None:
    shot = take_shot(computer_subject)
    x, y = points(computer_subject.env)[0]
    mark = computer_subject.env.mark()
    computer_subject.act(click(*shot.to_shot(x, y)))
    events = computer_subject.env.wait_for(mark, lambda seen: bool(of_type(seen, "click")))
    presses = of_type(events, "mousedown", "mouseup", "click")
    expect(
        [event["type"] for event in presses] == ["mousedown", "mouseup", "click"],
        "CO-CLICK-001",
        f"expected one press, release and click, got {describe(presses)}",
    )
    expect(
        all(near(event, x, y, shot.tolerance) for event in presses),
        "CO-CLICK-001",
        f"click asked for screen point ({x}, {y}) but landed at {describe(presses)}",
    )


@pytest.mark.clause("CO-CLICK-002")
@pytest.mark.parametrize("button", ["right", "wheel", "back", "forward", "left"])
def test_click_uses_the_requested_button(computer_subject: ComputerSubject, button: str) -> None:
    shot = take_shot(computer_subject)
    x, y = points(computer_subject.env)[1]
    mark = computer_subject.env.mark()
    computer_subject.act(click(*shot.to_shot(x, y), button=button))
    events = computer_subject.env.wait_for(mark, lambda seen: bool(of_type(seen, "mouseup")))
    buttons = [event["button"] for event in of_type(events, "mousedown", "mouseup")]
    expect(
        buttons == [DOM_BUTTON[button]] * 2,
        "CO-CLICK-002",
        f"a {button} click should press and release DOM button {DOM_BUTTON[button]}, got {describe(events)}",
    )


@pytest.mark.clause("CO-CLICK-003")
def test_keys_are_held_during_a_click(computer_subject: ComputerSubject) -> None:
    shot = take_shot(computer_subject)
    x, y = points(computer_subject.env)[2]
    mark = computer_subject.env.mark()
    computer_subject.act(click(*shot.to_shot(x, y), keys=["shift"]))
    events = computer_subject.env.wait_for(
        mark, lambda seen: bool(of_type(seen, "click")) and any(e.get("key") == "Shift" for e in of_type(seen, "keyup"))
    )
    press = of_type(events, "mousedown")
    expect(press and press[0]["shift"], "CO-CLICK-003", f"Shift was not held at the press: {describe(events)}")
    releases = [event for event in of_type(events, "keyup") if event.get("key") == "Shift"]
    expect(
        bool(releases) and releases[-1]["seq"] > press[0]["seq"],
        "CO-CLICK-003",
        f"Shift was not released after the click: {describe(events)}",
    )


@pytest.mark.clause("CO-DCLICK-001")
def test_double_click_is_a_double_click(computer_subject: ComputerSubject) -> None:
    shot = take_shot(computer_subject)
    x, y = points(computer_subject.env)[3]
    mark = computer_subject.env.mark()
    sx, sy = shot.to_shot(x, y)
    computer_subject.act(actions.DoubleClick(type="double_click", x=sx, y=sy))
    events = computer_subject.env.wait_for(mark, lambda seen: bool(of_type(seen, "dblclick")))
    doubles = of_type(events, "dblclick")
    expect(len(doubles) == 1, "CO-DCLICK-001", f"expected one dblclick, got {describe(events)}")
    expect(
        near(doubles[0], x, y, shot.tolerance) and len(of_type(events, "mousedown")) == 2,
        "CO-DCLICK-001",
        f"expected two presses and a dblclick at ({x}, {y}), got {describe(events)}",
    )


@pytest.mark.clause("CO-MOVE-001")
def test_move_moves_without_pressing(computer_subject: ComputerSubject) -> None:
    shot = take_shot(computer_subject)
    x, y = points(computer_subject.env)[1]
    mark = computer_subject.env.mark()
    sx, sy = shot.to_shot(x, y)
    computer_subject.act(actions.Move(type="move", x=sx, y=sy))
    events = computer_subject.env.wait_for(
        mark, lambda seen: any(near(e, x, y, shot.tolerance) for e in of_type(seen, "pointermove"))
    )
    moves = of_type(events, "pointermove")
    expect(
        bool(moves) and near(moves[-1], x, y, shot.tolerance),
        "CO-MOVE-001",
        f"pointer did not arrive at ({x}, {y}): {describe(events)}",
    )
    expect(
        not of_type(events, "mousedown", "mouseup", "click") and all(m["buttons"] == 0 for m in moves),
        "CO-MOVE-001",
        f"move pressed a button: {describe(events)}",
    )


@pytest.mark.clause("CO-DRAG-001")
def test_drag_follows_the_path(computer_subject: ComputerSubject) -> None:
    shot = take_shot(computer_subject)
    screen_path = drag_path(computer_subject.env)
    path = [dict(zip(("x", "y"), shot.to_shot(x, y), strict=True)) for x, y in screen_path]
    mark = computer_subject.env.mark()
    computer_subject.act(actions.Drag(type="drag", path=path))  # type: ignore[arg-type]
    events = computer_subject.env.wait_for(mark, lambda seen: bool(of_type(seen, "mouseup")))
    downs, ups = of_type(events, "mousedown"), of_type(events, "mouseup")
    expect(
        len(downs) == 1 and near(downs[0], *screen_path[0], shot.tolerance),
        "CO-DRAG-001",
        f"expected one press at {screen_path[0]}, got {describe(events)}",
    )
    expect(
        len(ups) == 1 and near(ups[0], *screen_path[-1], shot.tolerance),
        "CO-DRAG-001",
        f"expected one release at {screen_path[-1]}, got {describe(events)}",
    )
    held = [e for e in of_type(events, "pointermove") if downs[0]["seq"] < e["seq"] < ups[0]["seq"]]
    expect(all(e["buttons"] & 1 for e in held), "CO-DRAG-001", f"button released mid-drag: {describe(held)}")
    # Chromium merges pointer motions that queue up while it is busy, so under load an intermediate point can
    # be absent; every point the page did see must be on the path, in the path's order.
    position = 0
    for event in held:
        while position < len(screen_path) and not near(event, *screen_path[position], shot.tolerance):
            position += 1
        expect(
            position < len(screen_path),
            "CO-DRAG-001",
            f"the held pointer went off the path or back along it: {describe(held)} for path {screen_path}",
        )


@pytest.mark.clause("CO-SCROLL-001")
@pytest.mark.parametrize(("scroll_x", "scroll_y"), [(0, 240), (0, -360), (240, 0), (-120, 0)])
def test_scroll_goes_the_right_way_by_about_the_distance(
    computer_subject: ComputerSubject, scroll_x: int, scroll_y: int
) -> None:
    shot = take_shot(computer_subject)
    x, y = points(computer_subject.env)[2]
    sx, sy = shot.to_shot(x, y)
    mark = computer_subject.env.mark()
    computer_subject.act(actions.Scroll(type="scroll", x=sx, y=sy, scroll_x=scroll_x, scroll_y=scroll_y))
    events = computer_subject.env.wait_for(mark, lambda seen: bool(of_type(seen, "wheel")))
    wheels = of_type(events, "wheel")
    expect(
        bool(wheels) and all(near(e, x, y, shot.tolerance) for e in wheels),
        "CO-SCROLL-001",
        f"expected wheel events at ({x}, {y}), got {describe(events)}",
    )
    total_x = sum(float(e["deltaX"]) for e in wheels)
    total_y = sum(float(e["deltaY"]) for e in wheels)
    for name, asked, moved in (("scroll_x", scroll_x, total_x), ("scroll_y", scroll_y, total_y)):
        if asked == 0:
            expect(moved == 0, "CO-SCROLL-001", f"{name}=0 but the page scrolled {moved} on that axis")
            continue
        expect(moved * asked > 0, "CO-SCROLL-001", f"{name}={asked} scrolled the other way ({moved})")
        # Wheel input moves in notches, and the distance may be in screenshot or screen pixels: accept a
        # factor of three either way of the distance asked for.
        ratio = abs(moved) / abs(asked)
        expect(
            1 / 3 <= ratio <= 3 / min(shot.scale_x, shot.scale_y),
            "CO-SCROLL-001",
            f"{name}={asked} scrolled {moved} pixels",
        )
