"""Opt-in coordinate input: click_at, hover_at, drag_path and hold_keys land where and how they were asked.

pointer.html places Target A (100..260 x 100..160), Target B (100..260 x 200..260), a drag pad that records
every move (400..1000 x 100..500) and a green swatch at fixed CSS positions, so a coordinate always names the
same element. Clauses: BR-PTR-001..010.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import pytest

from conformance.assertions import expect
from conformance.harness.environment import Effect, Environment
from conformance.harness.subject import BrowserSubject, CallOutcome

from ._effects import (
    await_effect,
    brief,
    effect_with,
    mark,
    near,
    page_viewport,
    recorded_since,
    since,
)
from ._expectations import expect_done, expect_refused, finish

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

TARGET_A = (180, 130)
TARGET_B = (180, 230)


def _click_at(
    subject: BrowserSubject, x: float, y: float, *, button: str = "left", count: int = 1, keys: Iterable[str] = ()
) -> CallOutcome:
    return subject.call("click_at", tab_id=None, x=x, y=y, button=button, click_count=count, keys=list(keys))


@pytest.mark.page("pointer.html")
@pytest.mark.clause("BR-PTR-001", "BR-PTR-002", "BR-PTR-003", "BR-ACT-001")
def test_click_at_uses_the_point_button_and_click_count(subject: BrowserSubject, env: Environment) -> None:
    subject.require("click_at")
    page_viewport(subject, "pointer.html")

    outcome = _click_at(subject, *TARGET_A)
    expect_done(outcome, "BR-PTR-001")
    click = await_effect(subject, "BR-PTR-001", "click", what="a click from click_at")
    expect(
        near(click, *TARGET_A) and click.get("target") == "target-a",
        "BR-PTR-001",
        f"click_at{TARGET_A} landed at ({click.get('x')}, {click.get('y')}) on {click.get('target')!r}",
    )
    expect(click.get("button") == 0, "BR-PTR-002", f"a left click arrived as button {click.get('button')}")
    finish(outcome)

    for button, code in (("right", 2), ("middle", 1)):
        position = mark(subject)
        outcome = _click_at(subject, *TARGET_B, button=button)
        expect_done(outcome, "BR-PTR-002")
        down = await_effect(subject, "BR-PTR-002", "mousedown", recorded_since(env, position), what=f"a {button} press")
        expect(
            down.get("button") == code and near(down, *TARGET_B),
            "BR-PTR-002",
            f"a {button} click arrived as button {down.get('button')} at ({down.get('x')}, {down.get('y')})",
        )
        finish(outcome)

    for count in (2, 3):
        position = mark(subject)
        outcome = _click_at(subject, *TARGET_A, count=count)
        expect_done(outcome, "BR-PTR-003")
        # Wait for the page's own word that the multi-click arrived; a short quiet spell alone is not enough on
        # a loaded machine, where the page's records can trail the call's return.
        await_effect(
            subject,
            "BR-PTR-003",
            "click",
            effect_with(detail=count),
            what=f"a click counted as {count}",
            after=position,
        )
        subject.env.settle()
        clicks = since(env, position, "click")
        details = [e.get("detail") for e in clicks]
        expect(
            # A driver may send every press (detail 1, 2, 3) or only the last one with its count; either way the
            # page must end on a click it counts as the requested multi-click, and see no more clicks than that.
            bool(details) and details[-1] == count and len(clicks) <= count,
            "BR-PTR-003",
            f"click_count={count} gave clicks with counts {details}",
        )
        if count == 2:
            expect(since(env, position, "dblclick"), "BR-PTR-003", "click_count=2 produced no double click")
        finish(outcome)


def _expect_one_hold_per_modifier(effects: list[Effect], modifiers: Iterable[str]) -> None:
    """Each listed modifier went down at most once and came up exactly as often: one hold around the click.

    A driver may carry the modifiers on the pointer event alone (no key events at all); what it may not do is send
    key input nobody asked for, such as a second release, which the page's own key handlers would act on.
    Auto-repeat keydowns (``repeat`` true) belong to the one hold and are not counted as presses.
    """
    for name in modifiers:
        presses = [e for e in effects if e.get("kind") == "keydown" and e.get("key") == name and not e.get("repeat")]
        releases = [e for e in effects if e.get("kind") == "keyup" and e.get("key") == name]
        expect(
            len(presses) <= 1 and len(releases) == len(presses),
            "BR-PTR-004",
            f"{name} was pressed {len(presses)} and released {len(releases)} times around one click",
        )


@pytest.mark.page("pointer.html")
@pytest.mark.clause("BR-PTR-004")
def test_click_at_holds_modifiers_only_for_the_click(subject: BrowserSubject, env: Environment) -> None:
    subject.require("click_at")
    page_viewport(subject, "pointer.html")
    position = mark(subject)
    outcome = _click_at(subject, *TARGET_A, keys=("Control", "Shift"))
    expect_done(outcome, "BR-PTR-004")
    click = await_effect(subject, "BR-PTR-004", "click", lambda e: e in since(env, position), what="the modified click")
    expect(
        set(click.get("modifiers") or []) == {"Control", "Shift"},
        "BR-PTR-004",
        f"the click carried modifiers {click.get('modifiers')}, not Control and Shift",
    )
    subject.env.settle()  # the releases trail the click
    _expect_one_hold_per_modifier(since(env, position), ("Control", "Shift"))
    outcome.expect_sdk_accepted()

    position = mark(subject)
    plain = _click_at(subject, *TARGET_B)
    expect_done(plain, "BR-PTR-004")
    after = await_effect(subject, "BR-PTR-004", "click", lambda e: e in since(env, position), what="the plain click")
    expect(
        not after.get("modifiers"),
        "BR-PTR-004",
        f"modifiers stayed down after the click that asked for them: {after.get('modifiers')}",
    )


@pytest.mark.page("pointer.html")
@pytest.mark.clause("BR-PTR-005", "BR-ACT-001")
def test_hover_at_moves_without_pressing(subject: BrowserSubject, env: Environment) -> None:
    subject.require("hover_at")
    page_viewport(subject, "pointer.html")
    position = mark(subject)
    outcome = subject.call("hover_at", tab_id=None, x=TARGET_B[0], y=TARGET_B[1])
    expect_done(outcome, "BR-PTR-005")
    over = await_effect(
        subject, "BR-PTR-005", "mouseover", effect_with(target="target-b"), what="the pointer over Target B"
    )
    expect(near(over, *TARGET_B), "BR-PTR-005", f"hover_at{TARGET_B} arrived at ({over.get('x')}, {over.get('y')})")
    subject.env.settle()
    pressed = [e for e in since(env, position) if e.get("kind") in ("mousedown", "mouseup", "click")]
    expect(not pressed, "BR-PTR-005", f"hover_at pressed a button: {brief(pressed)}")
    finish(outcome)


DRAG = [(450, 150), (550, 250), (700, 400), (850, 300)]


@pytest.mark.page("pointer.html")
@pytest.mark.clause("BR-PTR-006", "BR-PTR-007", "BR-ACT-001")
def test_drag_path_presses_follows_every_point_and_releases(subject: BrowserSubject, env: Environment) -> None:
    subject.require("drag_path")
    page_viewport(subject, "pointer.html")
    position = mark(subject)
    outcome = subject.call("drag_path", tab_id=None, path=[{"x": x, "y": y} for x, y in DRAG], keys=["Shift"])
    expect_done(outcome, "BR-PTR-006")
    await_effect(subject, "BR-PTR-006", "mouseup", lambda e: e in since(env, position), what="the drag's release")
    subject.env.settle()
    effects = since(env, position)
    downs = [e for e in effects if e.get("kind") == "mousedown"]
    ups = [e for e in effects if e.get("kind") == "mouseup"]
    expect(
        len(downs) == 1 and downs[0].get("button") == 0 and near(downs[0], *DRAG[0]),
        "BR-PTR-006",
        f"the drag should press the left button once at {DRAG[0]}: {brief(downs)}",
    )
    expect(
        len(ups) == 1 and near(ups[0], *DRAG[-1]),
        "BR-PTR-006",
        f"the drag should release once at {DRAG[-1]}: {brief(ups)}",
    )
    pressed_moves = [e for e in effects if e.get("kind") == "mousemove" and e.get("buttons") == 1]
    for x, y in DRAG[1:]:
        expect(
            any(near(e, x, y, tolerance=2) for e in pressed_moves),
            "BR-PTR-006",
            f"the pressed pointer never passed through ({x}, {y})",
        )
    for event in downs + ups:
        expect(
            "Shift" in (event.get("modifiers") or []),
            "BR-PTR-007",
            f"Shift was not held during the drag's {event.get('kind')}",
        )
    finish(outcome)

    if subject.implements("click_at"):
        position = mark(subject)
        expect_done(_click_at(subject, *TARGET_A), "BR-PTR-007")
        after = await_effect(subject, "BR-PTR-007", "click", lambda e: e in since(env, position), what="a later click")
        expect(not after.get("modifiers"), "BR-PTR-007", f"modifiers stayed down after the drag: {after['modifiers']}")


@pytest.mark.page("keys.html")
@pytest.mark.clause("BR-PTR-008", "BR-ACT-001")
def test_hold_keys_holds_for_the_duration_then_releases(subject: BrowserSubject, env: Environment) -> None:
    subject.require("hold_keys")
    await_effect(subject, "BR-PTR-008", "focused", effect_with(target="shortcut"), what="the field taking focus")
    position = mark(subject)
    started = time.monotonic()
    outcome = subject.call("hold_keys", tab_id=None, keys=["Control", "Shift"], duration_ms=800)
    elapsed = time.monotonic() - started
    expect_done(outcome, "BR-PTR-008")
    subject.env.settle()
    effects = since(env, position)
    for key in ("Control", "Shift"):
        downs = [e for e in effects if e.get("kind") == "keydown" and e.get("key") == key]
        ups = [e for e in effects if e.get("kind") == "keyup" and e.get("key") == key]
        expect(downs and ups, "BR-PTR-008", f"{key} was not pressed and released: {brief(effects, 10)}")
        held = (ups[-1]["t"] - downs[0]["t"]) / 1000
        # Generous: held at least half the duration, and the call did not return before that.
        expect(held >= 0.4, "BR-PTR-008", f"{key} was held {held:.2f} s of the 0.8 s asked for")
    expect(elapsed >= 0.4, "BR-PTR-008", f"hold_keys returned after {elapsed:.2f} s of an 0.8 s hold")
    finish(outcome)


@pytest.mark.page("pointer.html")
@pytest.mark.clause("BR-PTR-009")
def test_coordinates_outside_the_viewport_are_refused(subject: BrowserSubject, env: Environment) -> None:
    members = [m for m in ("click_at", "hover_at", "drag_path") if subject.implements(m)]
    if not members:
        subject.require("click_at")
    width, height = page_viewport(subject, "pointer.html")
    calls: dict[str, dict[str, Any]] = {
        "click_at": {"tab_id": None, "x": width + 40, "y": 130, "button": "left", "click_count": 1, "keys": []},
        "hover_at": {"tab_id": None, "x": 180, "y": height + 40},
        "drag_path": {"tab_id": None, "path": [{"x": 450, "y": 150}, {"x": width + 40, "y": 150}], "keys": []},
    }
    for member in members:
        position = mark(subject)
        outcome = subject.call(member, **calls[member])
        expect_refused(outcome, "BR-PTR-009", f"{member} got a point outside the {width}x{height} viewport")
        subject.env.settle()
        touched = [e for e in since(env, position) if e.get("kind") in ("mousedown", "mouseup", "click", "mouseover")]
        expect(not touched, "BR-PTR-009", f"the refused {member} still touched the page: {brief(touched)}")
        outcome.expect_sdk_accepted()


@pytest.mark.page("pointer.html")
@pytest.mark.clause("BR-PTR-010")
# Where click_at lands after a zoom means something only if it lands where it is told before one.
@pytest.mark.requires("BR-PTR-001")
def test_coordinates_stay_in_the_full_viewport_after_a_zoom(subject: BrowserSubject, env: Environment) -> None:
    subject.require("zoom", "click_at")
    page_viewport(subject, "pointer.html")
    zoomed = subject.call("zoom", tab_id=None, region=[100, 320, 220, 440])
    expect_done(zoomed, "BR-PTR-010")
    position = mark(subject)
    outcome = _click_at(subject, *TARGET_A)
    expect_done(outcome, "BR-PTR-010")
    click = await_effect(
        subject, "BR-PTR-010", "click", lambda e: e in since(env, position), what="the click after zoom"
    )
    expect(
        near(click, *TARGET_A),
        "BR-PTR-010",
        f"after zooming, click_at{TARGET_A} landed at ({click.get('x')}, {click.get('y')})",
    )


# A name no keyboard has: no driver can claim to support it, so hold_keys must refuse the whole call.
UNSUPPORTED_KEY = "KitNoSuchKey"


@pytest.mark.page("keys.html")
@pytest.mark.clause("BR-PTR-011")
def test_hold_keys_with_an_unsupported_key_holds_nothing(subject: BrowserSubject, env: Environment) -> None:
    subject.require("hold_keys")
    await_effect(subject, "BR-PTR-011", "focused", effect_with(target="shortcut"), what="the field taking focus")
    position = mark(subject)
    # The supported key comes first: a driver that presses keys one by one before looking at the rest would
    # already hold Shift when it meets the unknown name.
    outcome = subject.call("hold_keys", tab_id=None, keys=["Shift", UNSUPPORTED_KEY], duration_ms=300)
    expect_refused(outcome, "BR-PTR-011", f"{UNSUPPORTED_KEY!r} is not a key any driver supports")
    subject.env.settle()
    pressed = [e for e in since(env, position) if e.get("kind") in ("keydown", "keyup", "input")]
    expect(not pressed, "BR-PTR-011", f"hold_keys with an unsupported key still pressed keys: {brief(pressed, 10)}")
    outcome.expect_sdk_accepted()
