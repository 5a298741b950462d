"""Element refs: stable while the page stays the same, refused once the element, document or tab is gone (BR-REF)."""

from __future__ import annotations

import pytest

from conformance.assertions import as_precondition, expect, precondition, unverified
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject

from ._effects import await_effect, effect_with
from ._expectations import expect_browser_error
from ._refs import act_on, activation_effects, first_action, read_elements, ref_of, structured_read
from ._tabs import expect_valid_state, tab_ids

# A structured read that lists no ref for the controls a check must act on leaves the action unexercised.
_NO_REF = (
    "the structured read listed no ref for the {labels} control(s) the check acts on; the kit needs each visible "
    "control's ref in the read's elements (BrowserReadV1) to exercise it"
)

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")


@pytest.mark.page("forms.html")
@pytest.mark.clause("BR-REF-001")
def test_refs_are_stable_while_the_page_is_unchanged(subject: BrowserSubject, env: Environment) -> None:
    first = structured_read(subject)
    second = structured_read(subject)
    refs_first = {str(e.get("label")): e.get("ref") for e in read_elements(first)}
    refs_second = {str(e.get("label")): e.get("ref") for e in read_elements(second)}
    if not refs_first:
        # Refs carried only in the read's text cannot be compared: say so rather than pass on nothing.
        unverified("read_page", "its structured read of forms.html listed no elements, so no ref could be compared")
    changed = {
        label: (ref, refs_second.get(label))
        for label, ref in refs_first.items()
        if label in refs_second and refs_second[label] != ref
    }
    expect(not changed, "BR-REF-001", f"reading the unchanged page again gave controls new refs: {changed}")
    expect(
        set(refs_first) == set(refs_second),
        "BR-REF-001",
        f"the second read reports other controls: {sorted(set(refs_first) ^ set(refs_second))}",
    )


@pytest.mark.page("rerender.html")
@pytest.mark.clause("BR-REF-002", "BR-ERR-003")
# It re-renders the page by clicking its Rebuild button: a click that goes astray says nothing about refs.
@pytest.mark.requires("BR-ACT-002")
def test_a_ref_to_a_rerendered_control_is_refused(subject: BrowserSubject, env: Environment) -> None:
    action = first_action(subject)
    subject.require("click")  # the check re-renders the page by clicking its Rebuild button
    before = structured_read(subject, for_member=action)
    stale = ref_of(read_elements(before), "Confirm order")
    rebuild = ref_of(read_elements(before), "Rebuild controls")
    if not (stale and rebuild):
        unverified(action, _NO_REF.format(labels="'Confirm order' and 'Rebuild controls'"))
    pressed = subject.call("click", target=rebuild, tab_id=None)
    precondition(pressed.raised is None, "BR-ACT-002", f"clicking the Rebuild button: {pressed.describe()}")
    with as_precondition():
        await_effect(subject, "BR-ACT-002", "rerender", effect_with(generation=2), what="the rebuild")
    env.settle()
    outcome = act_on(subject, action, stale)
    expect_browser_error(outcome, "BR-REF-002", f"{action} with the ref of a control the page replaced")
    env.settle()
    activated = activation_effects(env, "confirm-gen-1") + activation_effects(env, "confirm-gen-2")
    expect(not activated, "BR-REF-002", f"the stale ref still activated a control: {activated}")
    outcome.expect_sdk_accepted()
    after = subject.call("read_page", filter="all", tab_id=None)
    expect(
        after.raised is None and ref_of(read_elements(after.raw), "Confirm order") is not None,
        "BR-ERR-003",
        "after refusing a stale ref the driver could not read the page's new controls",
    )


@pytest.mark.page("forms.html")
@pytest.mark.clause("BR-REF-003")
def test_a_ref_from_before_a_navigation_is_refused(subject: BrowserSubject, env: Environment) -> None:
    action = first_action(subject)
    subject.require("navigate")
    old = structured_read(subject, for_member=action)
    stale = ref_of(read_elements(old), "Save preferences")
    if not stale:
        unverified(action, _NO_REF.format(labels="'Save preferences'"))
    moved = subject.call("navigate", url=env.url("rerender.html"), tab_id=None)
    precondition(moved.raised is None, "BR-NAV-001", f"navigating to a permitted page: {moved.describe()}")
    with as_precondition():
        await_effect(subject, "BR-NAV-001", "load", effect_with(page="rerender.html"), what="the new page")
    env.settle()
    before = len(env.effects())
    outcome = act_on(subject, action, stale)
    expect_browser_error(outcome, "BR-REF-003", f"{action} with a ref read before the navigation")
    env.settle()
    activated = [e for e in env.effects()[before:] if e.get("kind") in ("click", "mouseover", "mousedown")]
    expect(not activated, "BR-REF-003", f"the stale ref activated something on the new page: {activated}")
    outcome.expect_sdk_accepted()


@pytest.mark.page("blank.html")
@pytest.mark.clause("BR-REF-004", "BR-REF-005")
# It judges that a ref used outside its tab activates nothing: reads that act themselves blur that.
@pytest.mark.requires("BR-READ-021")
def test_refs_stay_with_their_tab(subject: BrowserSubject, env: Environment) -> None:
    action = first_action(subject)
    subject.require("new_tab", "close_tab")
    start = subject.state()
    opened = subject.call("new_tab", url=env.url("forms.html"))
    precondition(opened.raised is None, "BR-TAB-001", f"opening a tab on forms.html: {opened.describe()}")
    added = [
        tab_id
        for tab_id in tab_ids(expect_valid_state(subject, "BR-TAB-001", "new_tab"))
        if tab_id not in tab_ids(start)
    ]
    precondition(len(added) == 1, "BR-TAB-001", f"new_tab(forms.html) added {len(added)} tabs to state, not one")
    first_tab, second_tab = tab_ids(start)[0], added[0]
    with as_precondition():
        await_effect(subject, "BR-TAB-001", "load", effect_with(page="forms.html"), what="the new tab")
    read = structured_read(subject, tab_id=second_tab, for_member=action)
    foreign = ref_of(read_elements(read), "Save preferences")
    if not foreign:
        unverified(action, _NO_REF.format(labels="'Save preferences'"))
    # The first tab shows blank.html and was never read: no ref was issued for it.
    wrong_tab = act_on(subject, action, foreign, tab_id=first_tab)
    expect_browser_error(
        wrong_tab, "BR-REF-005", f"{action} on tab {first_tab!r} with a ref read in tab {second_tab!r}"
    )
    closed = subject.call("close_tab", tab_id=second_tab)
    precondition(closed.raised is None, "BR-TAB-004", f"closing the second tab: {closed.describe()}")
    gone = act_on(subject, action, foreign)
    expect_browser_error(gone, "BR-REF-004", f"{action} with a ref read in the tab that was closed")
    env.settle()
    activated = activation_effects(env, "save")
    expect(not activated, "BR-REF-005", f"a ref used outside its tab activated 'Save preferences': {activated}")
