"""Tabs: new_tab, switch_tab and close_tab change the real tabs, state follows them, and unknown IDs are refused.

Clauses: BR-TAB-001..008. The tab pages record their own loads, so "the new tab shows the page" is the page's
word, and state is checked for the invariants the documents give it (unique IDs, exactly one active tab).
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from conformance.assertions import as_precondition, expect, violation
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject

from ._effects import await_effect, brief, effect_with, mark, since
from ._expectations import expect_done, expect_refused, finish
from ._tabs import NEVER_ISSUED_TAB, active_tab, expect_valid_state, tab_by_id, tab_ids

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

# new_tab with a URL opens one more tab showing that page: the step other tab checks stand on.
OPENS_TABS = "BR-TAB-001"


def _open_second_tab(subject: BrowserSubject, env: Environment, clause: str) -> tuple[str, str]:
    """Open tabs-a.html in a new tab; returns (first tab ID, new tab ID).

    Opening it is new_tab's own business (BR-TAB-001): for the checks that only work in the second tab, a new_tab
    that fails blocks them on that clause instead of failing theirs.
    """
    before = expect_valid_state(subject, clause, "the driver was created")
    first = active_tab(before)
    if first is None:
        violation(clause, "the driver starts with no active tab")
    with contextlib.nullcontext() if clause == OPENS_TABS else as_precondition():
        outcome = subject.call("new_tab", url=env.url("tabs-a.html"))
        expect_done(outcome, OPENS_TABS)
        await_effect(subject, OPENS_TABS, "load", effect_with(page="tabs-a.html"), what="tabs-a.html in the new tab")
        after = expect_valid_state(subject, OPENS_TABS, "new_tab")
        added = [tab_id for tab_id in tab_ids(after) if tab_id not in tab_ids(before)]
        expect(
            len(added) == 1, OPENS_TABS, f"new_tab should add exactly one tab: {tab_ids(before)} -> {tab_ids(after)}"
        )
    expect(first["id"] in tab_ids(after), "BR-TAB-006", f"the first tab lost its ID: {tab_ids(after)}")
    finish(outcome)
    return first["id"], added[0]


@pytest.mark.clause("BR-TAB-001", "BR-TAB-006", "BR-ACT-001")
def test_new_tab_with_a_url_opens_that_page(subject: BrowserSubject, env: Environment) -> None:
    subject.require("new_tab")
    _first, added = _open_second_tab(subject, env, "BR-TAB-001")
    tab = tab_by_id(subject.state(), added)
    expect(tab is not None and tab.get("title") == "Tabs A", "BR-TAB-001", f"the new tab reports {tab!r}")


@pytest.mark.clause("BR-TAB-002", "BR-ACT-001")
def test_new_tab_without_a_url_opens_a_blank_page(subject: BrowserSubject, env: Environment) -> None:
    subject.require("new_tab")
    before = expect_valid_state(subject, "BR-TAB-002", "the driver was created")
    position = mark(subject)
    outcome = subject.call("new_tab", url=None)
    expect_done(outcome, "BR-TAB-002")
    after = expect_valid_state(subject, "BR-TAB-002", "new_tab")
    added = [tab for tab in after["tabs"] if tab.get("id") not in tab_ids(before)]
    expect(len(added) == 1, "BR-TAB-002", f"new_tab(None) should add one tab: {tab_ids(before)} -> {tab_ids(after)}")
    expect(added[0].get("url") == "about:blank", "BR-TAB-002", f"the new tab is not blank: {added[0]!r}")
    subject.env.settle()
    loads = since(env, position, "load")
    expect(not loads, "BR-TAB-002", f"a blank tab loaded a fixture page: {brief(loads)}")
    finish(outcome)


@pytest.mark.clause("BR-TAB-003", "BR-TAB-004", "BR-TAB-006", "BR-ACT-001")
def test_switch_and_close_change_the_real_tabs(subject: BrowserSubject, env: Environment) -> None:
    subject.require("new_tab", "switch_tab", "close_tab")
    first, second = _open_second_tab(subject, env, "BR-TAB-003")
    for target in (first, second, first):
        outcome = subject.call("switch_tab", tab_id=target)
        expect_done(outcome, "BR-TAB-003")
        state = expect_valid_state(subject, "BR-TAB-003", "switch_tab")
        expect(set(tab_ids(state)) == {first, second}, "BR-TAB-006", f"tab IDs changed: {tab_ids(state)}")
        now = active_tab(state)
        expect(
            now is not None and now["id"] == target,
            "BR-TAB-003",
            f"after switch_tab({target!r}) the active tab is {now and now['id']!r}",
        )
        finish(outcome)

    # Close the inactive tab, then open another and close the active one: one remaining tab must be active.
    outcome = subject.call("close_tab", tab_id=second)
    expect_done(outcome, "BR-TAB-004")
    state = expect_valid_state(subject, "BR-TAB-004", "close_tab")
    expect(tab_ids(state) == [first], "BR-TAB-004", f"after closing {second!r} state lists {tab_ids(state)}")
    finish(outcome)

    _kept, third = _open_second_tab(subject, env, "BR-TAB-004")
    switched = subject.call("switch_tab", tab_id=third)
    expect_done(switched, "BR-TAB-003")
    closing = subject.call("close_tab", tab_id=third)
    expect_done(closing, "BR-TAB-004")
    state = expect_valid_state(subject, "BR-TAB-004", "closing the active tab")
    remaining = active_tab(state)
    expect(
        tab_ids(state) == [first] and remaining is not None and remaining["id"] == first,
        "BR-TAB-004",
        f"after closing the active tab state is {state.get('tabs')!r}",
    )
    finish(closing)


@pytest.mark.clause("BR-TAB-008")
# It moves the active tab with switch_tab: a switch_tab that does nothing says nothing about a null tab_id.
@pytest.mark.requires("BR-TAB-003")
def test_a_null_tab_id_follows_the_active_tab(subject: BrowserSubject, env: Environment) -> None:
    subject.require("new_tab", "switch_tab", "navigate")
    first, second = _open_second_tab(subject, env, "BR-TAB-008")
    for target, page, title in ((first, "tabs-b.html", "Tabs B"), (second, "blank.html", "Blank fixture")):
        expect_done(subject.call("switch_tab", tab_id=target), "BR-TAB-008")
        position = mark(subject)
        outcome = subject.call("navigate", url=env.url(page), tab_id=None)
        expect_done(outcome, "BR-TAB-008")
        # blank.html is also the start page: only a load after the mark is this navigation's.
        await_effect(subject, "BR-TAB-008", "load", effect_with(page=page), what=f"{page} loading", after=position)
        loads = since(env, position, "load")
        expect(len(loads) == 1, "BR-TAB-008", f"one navigation loaded {len(loads)} pages")
        tab = tab_by_id(subject.state(), target)
        expect(
            tab is not None and tab.get("title") == title,
            "BR-TAB-008",
            f"navigate(tab_id=None) after switch_tab({target!r}) did not land in that tab: {tab!r}",
        )


# Members whose tab_id can be checked without a target; sample arguments with an unknown tab.
_UNKNOWN_TAB_CALLS: dict[str, dict[str, Any]] = {
    "navigate": {"url": "tabs-a.html", "tab_id": NEVER_ISSUED_TAB},
    "key": {"keys": ["Enter"], "tab_id": NEVER_ISSUED_TAB},
    "scroll": {"direction": "down", "amount": 3, "tab_id": NEVER_ISSUED_TAB},
    "type": {"text": "must not arrive", "target": None, "tab_id": NEVER_ISSUED_TAB},
    "screenshot": {"tab_id": NEVER_ISSUED_TAB},
    "zoom": {"tab_id": NEVER_ISSUED_TAB, "region": [0, 0, 10, 10]},
    "wait_for": {"text": "Tab page A", "timeout_ms": 500, "tab_id": NEVER_ISSUED_TAB},
    "click_at": {"tab_id": NEVER_ISSUED_TAB, "x": 10, "y": 10, "button": "left", "click_count": 1, "keys": []},
    "hover_at": {"tab_id": NEVER_ISSUED_TAB, "x": 10, "y": 10},
    "hold_keys": {"tab_id": NEVER_ISSUED_TAB, "keys": ["Shift"], "duration_ms": 50},
    "drag_path": {"tab_id": NEVER_ISSUED_TAB, "path": [{"x": 10, "y": 10}, {"x": 20, "y": 20}], "keys": []},
}


@pytest.mark.page("tabs-a.html")
@pytest.mark.clause("BR-TAB-005", "BR-TAB-007", "BR-ACT-014")
def test_unknown_tab_ids_are_refused_and_touch_no_tab(subject: BrowserSubject, env: Environment) -> None:
    checked = [member for member in ("switch_tab", "close_tab", *_UNKNOWN_TAB_CALLS) if subject.implements(member)]
    if not checked:
        subject.require("switch_tab")
    before = expect_valid_state(subject, "BR-TAB-005", "the driver was created")
    for member in checked:
        arguments = dict(_UNKNOWN_TAB_CALLS.get(member, {"tab_id": NEVER_ISSUED_TAB}))
        if member == "navigate":
            arguments["url"] = env.url(arguments["url"])
        clause = "BR-TAB-005" if member in ("switch_tab", "close_tab") else "BR-TAB-007"
        position = mark(subject)
        outcome = subject.call(member, **arguments)
        expect_refused(outcome, clause, f"{member} named a tab the driver never issued")
        subject.env.settle()
        effects = since(env, position)
        expect(not effects, clause, f"{member} with an unknown tab still acted on a page: {brief(effects)}")
        after = expect_valid_state(subject, "BR-ACT-014", f"a refused {member}")
        expect(
            [(t["id"], t.get("active")) for t in after["tabs"]] == [(t["id"], t.get("active")) for t in before["tabs"]],
            clause,
            f"{member} with an unknown tab changed the tabs: {before['tabs']!r} -> {after['tabs']!r}",
        )
        outcome.expect_sdk_accepted()
