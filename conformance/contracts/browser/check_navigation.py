"""Navigation: navigate loads the page it was given, in the tab it was given, and state follows it.

Clauses: BR-NAV-001..003, with BR-TAB-006 (stable tab IDs) where a navigation could renumber tabs.
The page's own load record is the evidence; state is checked only for what it must report afterwards. A page the
server answers slowly must load too (it has no recorder: its title in state is the evidence).
"""

from __future__ import annotations

import time

import pytest

from conformance.assertions import as_precondition, expect, violation
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject

from ._effects import await_effect, effect_with
from ._expectations import expect_done, finish
from ._tabs import active_tab, expect_valid_state, tab_by_id, tab_ids

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")


@pytest.mark.clause("BR-NAV-001", "BR-NAV-003", "BR-TAB-006", "BR-ACT-001")
def test_navigate_loads_the_page_in_the_active_tab(subject: BrowserSubject, env: Environment) -> None:
    before = expect_valid_state(subject, "BR-NAV-003", "the driver was created")
    start_tab = active_tab(before)
    outcome = subject.call("navigate", url=env.url("tabs-a.html"), tab_id=None)

    expect_done(outcome, "BR-NAV-001")
    await_effect(subject, "BR-NAV-001", "load", effect_with(page="tabs-a.html"), what="tabs-a.html loading")
    after = expect_valid_state(subject, "BR-NAV-003", "navigate")
    now_active = active_tab(after)
    expect(
        start_tab is None or (now_active is not None and now_active["id"] == start_tab["id"]),
        "BR-TAB-006",
        f"the navigated tab changed its ID or stopped being active: {tab_ids(before)} -> {tab_ids(after)}",
    )
    expect(
        now_active is not None and now_active.get("title") == "Tabs A",
        "BR-NAV-003",
        f"state does not report the new page's title for the active tab: {now_active!r}",
    )
    expect(
        now_active is not None and str(now_active.get("url", "")).startswith(env.main_origin),
        "BR-NAV-003",
        f"state does not report the new page's origin {env.main_origin}: {now_active!r}",
    )
    finish(outcome)


@pytest.mark.clause("BR-NAV-002", "BR-TAB-006")
def test_navigate_with_a_tab_id_loads_that_tab_only(subject: BrowserSubject, env: Environment) -> None:
    subject.require("navigate", "new_tab")
    first = active_tab(expect_valid_state(subject, "BR-NAV-002", "the driver was created"))
    if first is None:
        violation("BR-NAV-002", "the driver starts with no active tab")
    # Opening the second tab is new_tab's business (BR-TAB-001); this check only works in it.
    with as_precondition():
        opened = subject.call("new_tab", url=env.url("tabs-a.html"))
        expect_done(opened, "BR-TAB-001")
        await_effect(subject, "BR-TAB-001", "load", effect_with(page="tabs-a.html"), what="the new tab loading")
    middle = expect_valid_state(subject, "BR-NAV-002", "new_tab")
    second = [tab for tab in tab_ids(middle) if tab != first["id"]]
    expect(len(second) == 1, "BR-NAV-002", f"expected one new tab beside {first['id']!r}: {tab_ids(middle)}")

    outcome = subject.call("navigate", url=env.url("tabs-b.html"), tab_id=first["id"])
    expect_done(outcome, "BR-NAV-002")
    await_effect(subject, "BR-NAV-002", "load", effect_with(page="tabs-b.html"), what="tabs-b.html loading")
    after = expect_valid_state(subject, "BR-NAV-002", "navigate")
    expect(
        set(tab_ids(after)) == {first["id"], second[0]},
        "BR-TAB-006",
        f"tab IDs changed across a navigation: {tab_ids(middle)} -> {tab_ids(after)}",
    )
    named, other = tab_by_id(after, first["id"]), tab_by_id(after, second[0])
    expect(
        named is not None and named.get("title") == "Tabs B",
        "BR-NAV-002",
        f"the named tab does not show the page navigated to: {named!r}",
    )
    expect(
        other is not None and other.get("title") == "Tabs A",
        "BR-NAV-002",
        f"the other tab changed although navigate named a different tab: {other!r}",
    )
    finish(outcome)


# How long the kit's server holds the slow page before answering: longer than a browser's first look at a load
# (a driver that only waits briefly for the load event, then polls for it, must go on noticing it), far shorter
# than any wait a driver could sensibly give up after.
SLOW_PAGE_MS = 2500
# How long after navigate returns state gets to show the slow page (navigate may return before the page loads).
SLOW_PAGE_SHOWN_SECONDS = 10.0


@pytest.mark.clause("BR-NAV-001")
def test_navigate_to_a_slow_page_waits_for_it(subject: BrowserSubject, env: Environment) -> None:
    subject.require("navigate")
    outcome = subject.call("navigate", url=env.url(f"__slow?ms={SLOW_PAGE_MS}"), tab_id=None)
    expect_done(outcome, "BR-NAV-001")
    deadline = time.monotonic() + SLOW_PAGE_SHOWN_SECONDS
    while True:
        shown = active_tab(expect_valid_state(subject, "BR-NAV-001", "navigate to a slow page"))
        if (shown is not None and shown.get("title") == "Slow") or time.monotonic() >= deadline:
            break
        env.pause(0.2)
    expect(
        shown is not None and shown.get("title") == "Slow",
        "BR-NAV-001",
        f"{SLOW_PAGE_SHOWN_SECONDS:g} s after navigate returned, the active tab shows {shown!r}, not the slow page",
    )
    finish(outcome)
