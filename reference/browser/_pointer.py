"""Coordinate members: click_at, hover_at, drag_path and hold_keys.

Coordinates are CSS pixels of the full viewport (also after a zoom) and are checked against the current
viewport before any input is sent. Modifiers and held keys are always released, even when a step fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openai.lib.browser import BrowserError, ClickAtInput, DragPathInput, HoldKeysInput, HoverAtInput

from reference.flows import Flow, Pause, call

from ._keys import holding, just, key_name
from ._session import BrowserSession, Cancelled, Tab, check_cancelled


def viewport(tab: Tab) -> Flow[tuple[int, int]]:
    size = tab.page.viewport_size
    if size is None:
        measured = yield call(tab.page, "evaluate", "() => [innerWidth, innerHeight]")
        return int(measured[0]), int(measured[1])
    return int(size["width"]), int(size["height"])


def _inside(width: int, height: int, points: Sequence[tuple[int, int]]) -> None:
    for x, y in points:
        if not (0 <= x < width and 0 <= y < height):
            raise BrowserError("Those coordinates are outside the current viewport.")


def _modifiers(keys: Sequence[str]) -> list[str]:
    if len(set(keys)) != len(keys) or any(name not in ("Control", "Alt", "Meta", "Shift") for name in keys):
        raise BrowserError("Modifiers must be unique names among Control, Alt, Meta and Shift.")
    return list(keys)


def click_at(session: BrowserSession, action: ClickAtInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    yield from session.bound_to_observed(tab)
    modifiers = _modifiers(action["keys"])
    width, height = yield from viewport(tab)
    _inside(width, height, [(action["x"], action["y"])])
    press = call(
        tab.page.mouse, "click", action["x"], action["y"], button=action["button"], click_count=action["click_count"]
    )
    yield from holding(tab.page.keyboard, modifiers, just(press))
    return "Clicked."


def hover_at(session: BrowserSession, action: HoverAtInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    yield from session.bound_to_observed(tab)
    width, height = yield from viewport(tab)
    _inside(width, height, [(action["x"], action["y"])])
    yield call(tab.page.mouse, "move", action["x"], action["y"])
    return "Moved the pointer."


def drag_path(session: BrowserSession, action: DragPathInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    yield from session.bound_to_observed(tab)
    modifiers = _modifiers(action["keys"])
    points = [(point["x"], point["y"]) for point in action["path"]]
    if not 2 <= len(points) <= 100:
        raise BrowserError("A drag path has 2 to 100 points.")
    width, height = yield from viewport(tab)
    _inside(width, height, points)
    yield from holding(tab.page.keyboard, modifiers, _press_along(tab.page.mouse, points))
    return "Dragged."


def _press_along(mouse: Any, points: Sequence[tuple[int, int]]) -> Flow[None]:
    """Press the button at the first point, move through the rest, and release it however the moves end."""
    yield call(mouse, "move", *points[0])
    yield call(mouse, "down")
    try:
        for x, y in points[1:]:
            yield call(mouse, "move", x, y)
    finally:
        yield call(mouse, "up")


def hold_keys(session: BrowserSession, action: HoldKeysInput, cancelled: Cancelled) -> Flow[str]:
    """Press every key, hold for the duration (ending early on a stop request), then release in reverse."""
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    if not 1 <= action["duration_ms"] <= 3000:
        raise BrowserError("The hold duration is 1 to 3000 milliseconds.")
    names = [key_name(name) for name in action["keys"]]
    if len(set(names)) != len(names):
        raise BrowserError("Held keys must be unique.")
    yield from holding(tab.page.keyboard, names, _pause(tab, action["duration_ms"] / 1000, cancelled))
    return "Held and released the keys."


def _pause(tab: Tab, seconds: float, cancelled: Cancelled) -> Flow[None]:
    """Let ``seconds`` pass with the page running, ending early once a stop is requested."""
    remaining = seconds
    while remaining > 0 and not (cancelled is not None and cancelled()):
        step = min(0.05, remaining)
        yield Pause(step, tab.page)
        remaining -= step
