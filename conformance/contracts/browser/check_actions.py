"""Ref-based actions and waits: click, type, key, scroll, scroll_to, select_option, hover and wait_for.

Each action is judged by what actions.html (or keys.html, wait.html) recorded, never by the driver's report.
Refs come from the driver's own read_page, found by label, because their form is the driver's to choose.
Clauses: BR-ACT-001..014.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from conformance.assertions import expect, not_checked, violation
from conformance.harness.environment import Effect, Environment
from conformance.harness.subject import BrowserSubject

from ._effects import (
    await_effect,
    brief,
    effect_with,
    expect_untouched,
    input_effects_since,
    mark,
    recorded_since,
    since,
)
from ._expectations import expect_done, expect_refused, finish
from ._refs import NEVER_ISSUED_REF, elements_for, find_ref, require_ref
from ._tabs import expect_valid_state

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-ACT-002", "BR-ACT-001")
def test_click_activates_exactly_the_referenced_control(subject: BrowserSubject, env: Environment) -> None:
    ref = require_ref(subject, "click", "Save draft")
    position = mark(subject)
    outcome = subject.call("click", target=ref, tab_id=None)

    expect_done(outcome, "BR-ACT-002")
    await_effect(subject, "BR-ACT-002", "click", effect_with(target="save"), what="a click on Save draft", of_call=True)
    subject.env.settle()
    clicks = since(env, position, "click")
    expect(
        [effect.get("target") for effect in clicks] == ["save"],
        "BR-ACT-002",
        f"expected one click on Save draft, the page recorded {brief(clicks)}",
    )
    finish(outcome)


# Sample wire arguments naming a target the driver never issued, for every ref-taking member.
_UNISSUED_TARGET_CALLS: dict[str, dict[str, Any]] = {
    "click": {"target": NEVER_ISSUED_REF, "tab_id": None},
    "hover": {"target": NEVER_ISSUED_REF, "tab_id": None},
    "scroll_to": {"target": NEVER_ISSUED_REF, "tab_id": None},
    "type": {"text": "must not arrive", "target": NEVER_ISSUED_REF, "tab_id": None},
    "select_option": {"target": NEVER_ISSUED_REF, "values": ["express"], "tab_id": None},
    "set_checked": {"target": NEVER_ISSUED_REF, "checked": True, "tab_id": None},
}


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-ACT-003", "BR-ACT-014")
def test_a_target_the_driver_never_issued_is_refused_without_effect(subject: BrowserSubject, env: Environment) -> None:
    members = [member for member in _UNISSUED_TARGET_CALLS if subject.implements(member)]
    if not members:
        subject.require("click")
    for member in members:
        position = mark(subject)
        outcome = subject.call(member, **_UNISSUED_TARGET_CALLS[member])
        expect_refused(outcome, "BR-ACT-003", f"{member} got a ref the driver never issued")
        subject.env.settle()
        touched = input_effects_since(env, position)
        expect(not touched, "BR-ACT-003", f"{member} with an unissued ref still touched the page: {brief(touched)}")
        expect_valid_state(subject, "BR-ACT-014", f"a refused {member}")
        outcome.expect_sdk_accepted()


def _let_the_records_catch_up(subject: BrowserSubject, probe: str, text: str) -> None:
    """Let the page's records of a typed text arrive before judging the final value.

    A driver may type key by key, and on a loaded machine the page's records of those keys can arrive with gaps
    longer than a quiet spell. The typing call has returned, so the page barrier covers every one of them: once it
    holds without the full text, the text is not coming (and a driver that typed something else fails at once).
    """
    subject.env.poll_effect_of_call("input", lambda e: e.get("target") == probe and e.get("value") == text)
    subject.env.settle()


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-ACT-004", "BR-ACT-001")
def test_type_fills_the_referenced_control(subject: BrowserSubject, env: Environment) -> None:
    ref = require_ref(subject, "type", "Full name")
    # Typed twice into the same control: filling replaces what it held, so the second text must not add to the first.
    for text in ("Ada Lovelace", "Grace Hopper"):
        position = mark(subject)
        outcome = subject.call("type", text=text, target=ref, tab_id=None)

        expect_done(outcome, "BR-ACT-004")
        await_effect(
            subject,
            "BR-ACT-004",
            "input",
            effect_with(target="full-name"),
            what="Full name input",
            of_call=True,
            after=position,
        )
        _let_the_records_catch_up(subject, "full-name", text)
        values = [
            e.get("value")
            for e in since(env, position)
            if e.get("kind") in ("input", "change") and e.get("target") == "full-name"
        ]
        expect(values and values[-1] == text, "BR-ACT-004", f"typing {text!r} left Full name as {values[-1:]!r}")
        strays = [e for e in since(env, position, "input") if e.get("target") != "full-name"]
        expect(not strays, "BR-ACT-004", f"typing reached other controls: {brief(strays)}")
        finish(outcome)


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-ACT-005", "BR-ACT-001")
def test_type_with_a_null_target_types_at_the_focus(subject: BrowserSubject, env: Environment) -> None:
    subject.require("type")
    # actions.html focuses Notes on load and records it, so the caret is known to be there before the call.
    await_effect(subject, "BR-ACT-005", "focused", effect_with(target="notes"), what="Notes taking focus")
    position = mark(subject)
    outcome = subject.call("type", text="left at the door", target=None, tab_id=None)

    expect_done(outcome, "BR-ACT-005")
    await_effect(
        subject,
        "BR-ACT-005",
        "input",
        effect_with(target="notes"),
        what="input in the focused Notes",
        of_call=True,
    )
    _let_the_records_catch_up(subject, "notes", "left at the door")
    values = [e.get("value") for e in since(env, position, "input") if e.get("target") == "notes"]
    expect(values[-1:] == ["left at the door"], "BR-ACT-005", f"the focused Notes field ended as {values[-1:]!r}")
    finish(outcome)


@pytest.mark.page("keys.html")
@pytest.mark.clause("BR-ACT-006", "BR-ACT-001")
def test_key_presses_keys_and_chords_in_the_focused_control(subject: BrowserSubject, env: Environment) -> None:
    subject.require("key")
    await_effect(subject, "BR-ACT-006", "focused", effect_with(target="shortcut"), what="the field taking focus")
    outcome = subject.call("key", keys=["Enter"], tab_id=None)
    expect_done(outcome, "BR-ACT-006")
    await_effect(
        subject,
        "BR-ACT-006",
        "keydown",
        lambda e: e.get("key") == "Enter" and e.get("target") == "shortcut",
        what="Enter pressed in the focused field",
        of_call=True,
    )
    finish(outcome)

    # A chord: the modifier must still be down when the second key goes down.
    chord = subject.call("key", keys=["Shift", "ArrowLeft"], tab_id=None)
    expect_done(chord, "BR-ACT-006")
    await_effect(
        subject,
        "BR-ACT-006",
        "keydown",
        lambda e: e.get("key") == "ArrowLeft" and "Shift" in (e.get("modifiers") or []),
        what="ArrowLeft pressed while Shift was held",
        of_call=True,
    )
    finish(chord)


def _latest_scroll(env: Environment, position: int) -> tuple[int, int] | None:
    scrolls = since(env, position, "scroll")
    return (scrolls[-1]["scrollX"], scrolls[-1]["scrollY"]) if scrolls else None


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-ACT-007", "BR-ACT-001")
def test_scroll_moves_the_page_in_each_direction(subject: BrowserSubject, env: Environment) -> None:
    subject.require("scroll")
    offset = (0, 0)
    # Down and right first: the page starts at the top-left corner, where up and left cannot move it.
    for direction, axis, sign in (("down", 1, 1), ("right", 0, 1), ("up", 1, -1), ("left", 0, -1)):
        position = mark(subject)
        outcome = subject.call("scroll", direction=direction, amount=3, tab_id=None)
        expect_done(outcome, "BR-ACT-007")
        # The page's scroll record can trail the call on a loaded machine: wait for one (a scroll that did not
        # move the page records none, and fails below after the wait).
        subject.env.poll_effect("scroll", recorded_since(env, position), timeout=3.0)
        subject.env.settle()
        latest = _latest_scroll(env, position)
        if latest is None:
            violation("BR-ACT-007", f"scroll {direction} did not move the page")
        moved = (latest[axis] - offset[axis]) * sign
        expect(moved > 0, "BR-ACT-007", f"scroll {direction} moved the page from {offset} to {latest}")
        offset = latest
        finish(outcome)


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-ACT-008", "BR-ACT-001")
def test_scroll_to_brings_an_observed_target_into_view(subject: BrowserSubject, env: Environment) -> None:
    # Visibility is the driver's to decide: a driver that reports only on-screen controls offers no such target,
    # and scroll_to stays unverified.
    ref = require_ref(subject, "scroll_to", "Far away button")
    outcome = subject.call("scroll_to", target=ref, tab_id=None)
    expect_done(outcome, "BR-ACT-008")
    await_effect(
        subject,
        "BR-ACT-008",
        "far-button-box",
        lambda e: e.get("visible") is True,
        what="the far button inside the viewport after scroll_to",
    )
    finish(outcome)


# wait.html (?clock=barrier) shows its late text this long after the last barrier marker it got before showing it,
# or, if no marker reaches it, this long after WAIT_PAGE_FALLBACK_S from its script's start.
WAIT_PAGE_DELAY_S = 1.0
WAIT_PAGE_FALLBACK_S = 2.5
WAIT_PAGE = f"wait.html?clock=barrier&delay={WAIT_PAGE_DELAY_S * 1000:.0f}&fallback={WAIT_PAGE_FALLBACK_S * 1000:.0f}"


def _earliest_reveal(env: Environment, revealed: Effect) -> float:
    """The kit-clock time before which the page cannot have shown its late text (see WAIT_PAGE_DELAY_S).

    The page restarts its clock at every marker until the text shows, and records each start: the last start
    before the text, if it came from a marker, was after the kit raised that marker. Without such a record, the
    page's script started after the browser asked for it, which bounds the fallback start and any other.
    """
    requested = [request.at for request in env.requests("main") if request.path == "wait.html"]
    expect(requested, "BR-ACT-009", "the browser never requested wait.html, the page wait_for was asked about")
    starts = [
        effect
        for effect in env.effects("clock")
        if effect.get("instance") == revealed.get("instance") and int(effect["seq"]) < int(revealed["seq"])
    ]
    last = max(starts, key=lambda effect: int(effect["seq"]), default=None)
    if last is None:
        return requested[-1] + WAIT_PAGE_DELAY_S
    marker = last.get("marker")
    raised = env.marker_raised_at(int(marker)) if isinstance(marker, int) else None
    if raised is None:
        return requested[-1] + WAIT_PAGE_FALLBACK_S + WAIT_PAGE_DELAY_S
    return raised + WAIT_PAGE_DELAY_S


@pytest.mark.page(WAIT_PAGE)
@pytest.mark.clause("BR-ACT-009", "BR-ACT-011")
def test_wait_for_finds_text_that_appears_late(subject: BrowserSubject, env: Environment) -> None:
    subject.require("wait_for")
    position = mark(subject)  # its barrier marker restarts the page's clock just before the call
    called_at = time.time()
    outcome = subject.call("wait_for", text="Shipment is ready for pickup", timeout_ms=15000, tab_id=None)
    returned_at = time.time()
    expect_done(outcome, "BR-ACT-009")
    revealed = await_effect(
        subject, "BR-ACT-009", "revealed", timeout=15.0, what="the text wait_for waited for appearing"
    )
    subject.env.settle()
    # Judged on the kit's clock against when the page can first have shown the text, not against when its
    # "revealed" record arrives, which a loaded machine can hold back well after a correct driver saw the text.
    earliest = _earliest_reveal(env, revealed)
    if earliest <= called_at:
        not_checked(
            "wait.html could already show its text when wait_for was called (its clock started "
            f"{called_at - earliest + WAIT_PAGE_DELAY_S:.2f} s before the call), so waiting could not be told "
            "from reading once"
        )
    early = earliest - returned_at
    expect(early <= 0, "BR-ACT-009", f"wait_for returned {early:.2f} s before the text could have appeared")
    expect_untouched(env, position, "BR-ACT-011", "wait_for", ignore={"mouseover"})
    outcome.expect_sdk_accepted()


@pytest.mark.page("wait.html")
@pytest.mark.clause("BR-ACT-010", "BR-ACT-011")
def test_wait_for_absent_text_fails_after_about_its_timeout(subject: BrowserSubject, env: Environment) -> None:
    subject.require("wait_for")
    # A second is enough to tell "waited, then gave up" from "gave up at once" (the bound below is half of it).
    timeout_ms = 1000
    position = mark(subject)
    started = time.monotonic()
    outcome = subject.call("wait_for", text="This sentence is never shown", timeout_ms=timeout_ms, tab_id=None)
    elapsed = time.monotonic() - started

    expect_refused(outcome, "BR-ACT-010", "the text never appears")
    # Generous bounds: the point is "waited, then gave up", not precise timing.
    expect(
        elapsed >= 0.5 * timeout_ms / 1000,
        "BR-ACT-010",
        f"wait_for gave up after {elapsed:.2f} s, well before its {timeout_ms} ms timeout",
    )
    expect(
        elapsed <= timeout_ms / 1000 + 10, "BR-ACT-010", f"wait_for took {elapsed:.1f} s for a {timeout_ms} ms timeout"
    )
    expect_untouched(env, position, "BR-ACT-011", "wait_for", ignore={"mouseover"})
    outcome.expect_sdk_accepted()


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-ACT-012", "BR-ACT-001")
def test_select_option_selects_exactly_the_requested_values(subject: BrowserSubject, env: Environment) -> None:
    elements = elements_for(subject, "select_option", "Shipping speed", "Extras")
    for label, probe, values in (
        ("Shipping speed", "speed", ["express"]),
        ("Extras", "extras", ["insurance", "receipt"]),
    ):
        ref = find_ref(elements, label)
        outcome = subject.call("select_option", target=ref, values=values, tab_id=None)
        expect_done(outcome, "BR-ACT-012")
        await_effect(subject, "BR-ACT-012", "change", effect_with(target=probe), what=f"{label} changing")
        subject.env.settle()
        # A driver may select option by option; what counts is the selection the page ends with.
        final = [e.get("values") for e in since(env, 0, "change") if e.get("target") == probe][-1]
        expect(sorted(final or []) == sorted(values), "BR-ACT-012", f"{label} ended with {final}, not {values}")
        finish(outcome)


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-ACT-013", "BR-ACT-001")
def test_hover_puts_the_pointer_over_the_target_without_pressing(subject: BrowserSubject, env: Environment) -> None:
    ref = require_ref(subject, "hover", "Show help")
    position = mark(subject)
    outcome = subject.call("hover", target=ref, tab_id=None)
    expect_done(outcome, "BR-ACT-013")
    await_effect(subject, "BR-ACT-013", "mouseover", effect_with(target="tooltip"), what="the pointer over Show help")
    subject.env.settle()
    pressed = [e for e in since(env, position) if e.get("kind") in ("mousedown", "mouseup", "click")]
    expect(not pressed, "BR-ACT-013", f"hover pressed a button: {brief(pressed)}")
    finish(outcome)
