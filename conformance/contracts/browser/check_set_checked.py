"""Opt-in set_checked: it sets, never toggles, and it acts only on the observed checkbox it was given.

checkbox.html reports every change with the box's resulting checked state, and can replace its "Remember this
device" box with an identical new node (button click or the #replace fragment) so an old ref names a node that
no longer exists. Clauses: BR-CHK-001..004.
"""

from __future__ import annotations

import pytest

from conformance.assertions import expect
from conformance.harness.environment import Effect, Environment
from conformance.harness.subject import BrowserSubject

from ._effects import await_effect, brief, effect_with, mark, since
from ._expectations import expect_done, expect_refused, finish
from ._refs import elements_for, find_ref, require_ref

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")


def _changes(env: Environment, position: int, probe: str) -> list[Effect]:
    return [e for e in since(env, position) if e.get("kind") in ("change", "input") and e.get("target") == probe]


@pytest.mark.page("checkbox.html")
@pytest.mark.clause("BR-CHK-001", "BR-CHK-002", "BR-ACT-001")
def test_set_checked_sets_the_state_and_repeating_keeps_it(subject: BrowserSubject, env: Environment) -> None:
    elements = elements_for(subject, "set_checked", "newsletter", "usage data")
    for label, probe, wanted in (("newsletter", "newsletter", True), ("usage data", "tracking", False)):
        ref = find_ref(elements, label)
        position = mark(subject)
        outcome = subject.call("set_checked", tab_id=None, target=ref, checked=wanted)
        expect_done(outcome, "BR-CHK-001")
        await_effect(subject, "BR-CHK-001", "change", effect_with(target=probe), what=f"{label} changing")
        subject.env.settle()
        changes = _changes(env, position, probe)
        expect(
            changes and changes[-1].get("checked") is wanted,
            "BR-CHK-001",
            f"set_checked({wanted}) left {label} as {changes[-1].get('checked') if changes else 'unchanged'}",
        )
        finish(outcome)

        position = mark(subject)
        again = subject.call("set_checked", tab_id=None, target=ref, checked=wanted)
        expect_done(again, "BR-CHK-002")
        subject.env.settle()
        repeated = _changes(env, position, probe)
        expect(
            all(e.get("checked") is wanted for e in repeated),
            "BR-CHK-002",
            f"repeating set_checked({wanted}) toggled {label}: {brief(repeated)}",
        )
        finish(again)


def _ref_of_a_replaced_control(subject: BrowserSubject, env: Environment, clause: str) -> str:
    """A ref to the "Remember this device" box, taken before the page replaced that box with an unchecked twin
    (through its button, else through navigate to the page's #replace)."""
    old_ref = require_ref(subject, "set_checked", "Remember this device")
    if subject.implements("click"):
        button = require_ref(subject, "set_checked", "Replace remember control")
        expect_done(subject.call("click", target=button, tab_id=None), clause)
    elif subject.implements("navigate"):
        expect_done(subject.call("navigate", url=env.url("checkbox.html#replace"), tab_id=None), clause)
    else:
        subject.require("click")
    await_effect(subject, clause, "replaced", what="the control being replaced")
    return old_ref


def _expect_the_old_ref_refused(
    subject: BrowserSubject, env: Environment, clause: str, *, checked: bool, why: str
) -> None:
    """set_checked(``checked``) through the ref the replaced box had: refused, and the replacement box is left
    alone; ``clause`` is blamed for either breach."""
    old_ref = _ref_of_a_replaced_control(subject, env, clause)
    position = mark(subject)
    outcome = subject.call("set_checked", tab_id=None, target=old_ref, checked=checked)
    expect_refused(outcome, clause, why)
    subject.env.settle()
    changed = _changes(env, position, "remember")
    expect(not changed, clause, f"the replacement box was changed through the old ref: {brief(changed)}")
    outcome.expect_sdk_accepted()


@pytest.mark.page("checkbox.html")
@pytest.mark.clause("BR-CHK-003")
# It replaces the control by clicking a button (when the driver has click).
@pytest.mark.requires("BR-ACT-002")
def test_set_checked_refuses_a_replaced_control(subject: BrowserSubject, env: Environment) -> None:
    _expect_the_old_ref_refused(
        subject, env, "BR-CHK-003", checked=True, why="the ref names a control the page has since replaced"
    )


@pytest.mark.page("checkbox.html")
@pytest.mark.clause("BR-CHK-004")
def test_set_checked_refuses_a_control_that_is_not_a_checkbox(subject: BrowserSubject, env: Environment) -> None:
    ref = require_ref(subject, "set_checked", "Not a checkbox")
    position = mark(subject)
    outcome = subject.call("set_checked", tab_id=None, target=ref, checked=True)
    expect_refused(outcome, "BR-CHK-004", "the target is a button, not a checkbox")
    subject.env.settle()
    touched = [e for e in since(env, position) if e.get("kind") in ("click", "mousedown", "change")]
    expect(not touched, "BR-CHK-004", f"set_checked on a button still pressed it: {brief(touched)}")
    outcome.expect_sdk_accepted()


@pytest.mark.page("checkbox.html")
@pytest.mark.clause("BR-CHK-005")
# It replaces the control by clicking a button (when the driver has click).
@pytest.mark.requires("BR-ACT-002")
def test_set_checked_no_op_still_refuses_a_replaced_control(subject: BrowserSubject, env: Environment) -> None:
    # The replacement box is unchecked, as the old one was: asking for "unchecked" through the old ref needs no
    # change on either node, so only a driver that checks the ref's own control first can tell it is gone.
    _expect_the_old_ref_refused(
        subject,
        env,
        "BR-CHK-005",
        checked=False,
        why="the state asked for already holds, but the ref names a replaced control",
    )
