"""Observation metadata V1 in state: its shape, its change notices, its history and title cutting (BR-OBS)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from conformance import resources
from conformance.assertions import expect, not_implemented, not_provoked, precondition, precondition_failed, violation
from conformance.harness import page_layout
from conformance.harness.environment import Environment
from conformance.harness.state_rules import broken_observation_rule, is_counter
from conformance.harness.subject import BrowserSubject

from ._effects import effect_with
from ._reads import utf8_length
from ._tabs import TITLE_BYTES, active_tab, is_title_cut, tab_ids, tabs_of, the_active_tab

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

# Each documented change type and the fields (beyond type and sequence) it carries, with their allowed values;
# None means "a tab ID" (a string, or null where the type allows it).
CHANGE_FIELDS: dict[str, dict[str, tuple[str | None, ...]]] = {
    "tab_opened": {"tab_id": ()},
    "tab_closed": {"tab_id": ()},
    "tab_switched": {"tab_id": ()},
    "navigation": {"tab_id": ()},
    "navigation_refused": {"tab_id": (None,), "reason": ("policy", "unsupported")},
    "dialog_dismissed": {"tab_id": (), "kind": ("alert", "confirm", "prompt", "beforeunload", "other")},
    "download": {"tab_id": (None,), "status": ("blocked", "started", "completed", "failed")},
}


def observation_of(state: Any) -> dict[str, Any]:
    """The state's observation metadata; drivers that do not report it leave these checks not implemented.

    Every judgement of the metadata stands on its shape (BR-OBS-001): metadata of the wrong shape blocks the
    check on that clause instead of letting it fail on arithmetic with a value that is not a number.
    """
    if not isinstance(state, dict) or "observation" not in state:
        not_implemented("observation metadata V1 in state (env.hints.observation=True)")
    rule = broken_observation_rule(state["observation"])
    if rule is not None:
        precondition_failed(rule.clause, rule.detail)
    observation: dict[str, Any] = state["observation"]
    return observation


def check_observation_shape(observation: Any, where: str) -> None:
    rule = broken_observation_rule(observation)
    if rule is not None:
        violation(rule.clause, f"{where}: {rule.detail}")


def check_changes(observation: dict[str, Any], state: Any, known_tabs: set[str] | None, where: str) -> None:
    """BR-OBS-002 (documented types and fields) and BR-OBS-003 (no URLs, titles or free text in notices).

    ``known_tabs`` holds every tab ID the check has seen since the driver was made; None when the changes may
    predate the check (a factory can open and close tabs of its own before handing the driver over).
    """
    titles = {str(tab.get("title")) for tab in state.get("tabs", []) if tab.get("title")}
    for index, change in enumerate(observation["changes"]):
        spot = f"{where}: change {index}"
        expect(isinstance(change, dict), "BR-OBS-002", f"{spot} is not a dict")
        kind = change.get("type")
        expect(kind in CHANGE_FIELDS, "BR-OBS-002", f"{spot} has undocumented type {kind!r}")
        fields = CHANGE_FIELDS[kind]
        extra = sorted(set(change) - {"type", "sequence", *fields})
        expect(not extra, "BR-OBS-003", f"{spot} ({kind}) carries undocumented fields {extra}")
        expect(is_counter(change.get("sequence")), "BR-OBS-002", f"{spot} has sequence {change.get('sequence')!r}")
        for name, allowed in fields.items():
            expect(name in change, "BR-OBS-002", f"{spot} ({kind}) lacks {name}")
            value = change[name]
            if name == "tab_id":
                if value is None:
                    expect(None in allowed, "BR-OBS-002", f"{spot} ({kind}) has a null tab_id")
                    continue
                expect(isinstance(value, str) and value != "", "BR-OBS-002", f"{spot} has tab_id {value!r}")
                expect(
                    known_tabs is None or value in known_tabs,
                    "BR-OBS-002",
                    f"{spot} names tab {value!r}, which no state report listed",
                )
            else:
                expect(value in allowed, "BR-OBS-002", f"{spot} ({kind}) has {name}={value!r}")
        text = " ".join(str(value) for value in change.values() if isinstance(value, str))
        expect(
            "://" not in text and not any(title and title in text for title in titles),
            "BR-OBS-003",
            f"{spot} carries a URL or a page title: {text[:120]!r}",
        )


def check_history(earlier: dict[str, Any], later: dict[str, Any], where: str) -> None:
    """BR-OBS-005: nothing already observed disappears or changes, and counters only grow."""
    expect(
        later["sequence"] >= earlier["sequence"] and later["dropped_changes"] >= earlier["dropped_changes"],
        "BR-OBS-005",
        f"{where}: counters went backwards: sequence {earlier['sequence']} -> {later['sequence']}, "
        f"dropped {earlier['dropped_changes']} -> {later['dropped_changes']}",
    )
    earlier_by_sequence = {change.get("sequence"): change for change in earlier["changes"]}
    for change in later["changes"]:
        previous = earlier_by_sequence.get(change.get("sequence"))
        expect(
            previous is None or previous == change,
            "BR-OBS-005",
            f"{where}: change {change.get('sequence')} was {previous!r} and is now {change!r}",
        )


def new_changes(earlier: dict[str, Any], later: dict[str, Any]) -> list[dict[str, Any]]:
    return [change for change in later["changes"] if change.get("sequence", 0) > earlier["sequence"]]


@pytest.mark.page("forms.html")
@pytest.mark.hints(observation=True)
@pytest.mark.clause("BR-OBS-001", "BR-OBS-002", "BR-OBS-003", "BR-OBS-004", "BR-OBS-009", "BR-URL-003")
def test_observation_metadata_is_well_formed_and_not_consumed(subject: BrowserSubject, env: Environment) -> None:
    first_state = subject.state()
    first = observation_of(first_state)
    check_observation_shape(first, "first read")
    check_changes(first, first_state, None, "first read")
    second_state = subject.state()
    second = observation_of(second_state)
    check_observation_shape(second, "second read")
    expect(
        second == first,
        "BR-OBS-004",
        f"two state reads with no activity between them differ: {first!r} then {second!r}"[:400],
    )
    expect(
        first["title_truncated"] is False,
        "BR-OBS-009",
        "title_truncated is set although the only page has a 20-byte title",
    )
    for tab in first_state["tabs"]:
        url = str(tab.get("url"))
        expect(
            url == "about:blank" or re.match(r"https?://", url, re.IGNORECASE) is not None,
            "BR-URL-003",
            f"with observation metadata a tab reports the URL scheme of {url[:40]!r}",
        )
    outcome = subject.call("list_tabs")
    outcome.expect_sdk_accepted()


@pytest.mark.page("forms.html")
@pytest.mark.hints(observation=True)
@pytest.mark.clause("BR-OBS-002", "BR-OBS-003", "BR-OBS-005", "BR-OBS-006")
def test_a_navigation_is_observed(subject: BrowserSubject, env: Environment) -> None:
    subject.require("navigate")
    before_state = subject.state()
    before = observation_of(before_state)
    tab = the_active_tab(before_state, "state before navigate")
    outcome = subject.call("navigate", url=env.url("text.html"), tab_id=None)
    expect(outcome.raised is None, "BR-OBS-006", f"navigate to a permitted page failed: {outcome.raised!r}")
    outcome.expect_sdk_accepted()
    after_state = subject.state()
    after = observation_of(after_state)
    check_observation_shape(after, "after navigate")
    check_changes(after, after_state, None, "after navigate")
    check_history(before, after, "navigate")
    added = new_changes(before, after)
    expect(
        any(change.get("type") == "navigation" and change.get("tab_id") == tab["id"] for change in added)
        or after["dropped_changes"] > before["sequence"],
        "BR-OBS-006",
        f"navigating tab {tab['id']!r} added no navigation change (new changes: {added!r})",
    )


@pytest.mark.page("forms.html")
@pytest.mark.hints(observation=True)
@pytest.mark.clause("BR-OBS-002", "BR-OBS-005", "BR-OBS-007", "BR-URL-003")
def test_opening_and_closing_a_tab_is_observed(subject: BrowserSubject, env: Environment) -> None:
    subject.require("new_tab", "close_tab")
    start_state = subject.state()
    start = observation_of(start_state)
    opened = subject.call("new_tab", url=None)
    expect(opened.raised is None, "BR-OBS-007", f"new_tab(None) failed: {opened.raised!r}")
    opened.expect_sdk_accepted()
    open_state = subject.state()
    observed = observation_of(open_state)
    added_ids = [tab_id for tab_id in tab_ids(open_state) if tab_id not in tab_ids(start_state)]
    expect(len(added_ids) == 1, "BR-OBS-007", f"new_tab added {len(added_ids)} tabs to state")
    new_id = added_ids[0]
    for tab in open_state["tabs"]:
        url = str(tab.get("url"))
        expect(
            url == "about:blank" or re.match(r"https?://", url, re.IGNORECASE) is not None,
            "BR-URL-003",
            f"with observation metadata a tab reports the URL scheme of {url[:40]!r}",
        )
    known = set(tab_ids(start_state)) | set(added_ids)
    check_changes(observed, open_state, None, "after new_tab")
    check_changes({"changes": new_changes(start, observed)}, open_state, known, "changes from new_tab")
    check_history(start, observed, "new_tab")
    expect(
        any(c.get("type") == "tab_opened" and c.get("tab_id") == new_id for c in new_changes(start, observed))
        or observed["dropped_changes"] > start["sequence"],
        "BR-OBS-007",
        f"opening tab {new_id!r} added no tab_opened change: {new_changes(start, observed)!r}",
    )
    closed = subject.call("close_tab", tab_id=new_id)
    expect(closed.raised is None, "BR-OBS-007", f"close_tab({new_id!r}) failed: {closed.raised!r}")
    closed.expect_sdk_accepted()
    close_state = subject.state()
    final = observation_of(close_state)
    check_changes(final, close_state, None, "after close_tab")
    check_changes({"changes": new_changes(observed, final)}, close_state, known, "changes from close_tab")
    check_history(observed, final, "close_tab")
    expect(
        any(c.get("type") == "tab_closed" and c.get("tab_id") == new_id for c in new_changes(observed, final))
        or final["dropped_changes"] > observed["sequence"],
        "BR-OBS-007",
        f"closing tab {new_id!r} added no tab_closed change: {new_changes(observed, final)!r}",
    )


def fixture_title(page: str) -> str:
    """The title exactly as the fixture file spells it (the check's independent source of truth)."""
    source = resources.pages(page).read_text(encoding="utf-8")
    found = page_layout.title(source)
    assert found is not None, f"fixture {page} has no title"
    return found


@pytest.mark.page("long-title.html")
@pytest.mark.hints(observation=True)
@pytest.mark.clause("BR-OBS-001", "BR-OBS-008")
def test_a_long_title_is_cut_on_a_character_boundary(subject: BrowserSubject, env: Environment) -> None:
    full = fixture_title("long-title.html")
    assert utf8_length(full) > TITLE_BYTES, "long-title.html must keep a title over 1,024 bytes"
    state = subject.state()
    observation = observation_of(state)
    check_observation_shape(observation, "long title")
    tab = the_active_tab(state, "state of a page with a long title")
    raw_title = str(tab["title"])
    # A driver may leave the cut to the SDK (full title) or cut itself; a cut of its own must be a
    # character-boundary prefix within 1,024 bytes and must set title_truncated.
    if raw_title != full:
        expect(
            is_title_cut(raw_title, full),
            "BR-OBS-008",
            f"the reported title is not a prefix of the page title within 1,024 bytes ({utf8_length(raw_title)} bytes)",
        )
        expect(
            observation["title_truncated"] is True,
            "BR-OBS-008",
            "the driver shortened the title but did not set title_truncated",
        )
    outcome = subject.call("list_tabs")
    outcome.expect_sdk_accepted()
    assert outcome.payload is not None
    shown = active_tab(outcome.payload["state"])
    assert shown is not None
    expect(
        is_title_cut(shown["title"], full),
        "BR-OBS-008",
        f"the model sees a {utf8_length(shown['title'])}-byte title that is not a boundary cut of the page title",
    )
    expect(
        outcome.payload["state"]["observation"]["title_truncated"] is True,
        "BR-OBS-008",
        "the model's state shows a cut title without title_truncated",
    )


def _observed_around(subject: BrowserSubject, act: Callable[[], None]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The observation before and after ``act``, each from a state report of its own."""
    before = observation_of(subject.state())
    act()
    after_state = subject.state()
    after = observation_of(after_state)
    check_changes(after, after_state, None, "after the action")
    return before, after


def _noticed(before: dict[str, Any], after: dict[str, Any], **fields: object) -> bool:
    """A new change with ``fields``, or one the history may have dropped already (its bound is the driver's)."""
    added = new_changes(before, after)
    return any(all(change.get(k) == v for k, v in fields.items()) for change in added) or (
        after["dropped_changes"] > before["sequence"]
    )


@pytest.mark.page("forms.html")
@pytest.mark.hints(observation=True)
@pytest.mark.clause("BR-OBS-010")
def test_switching_tabs_is_observed(subject: BrowserSubject, env: Environment) -> None:
    subject.require("new_tab", "switch_tab")
    opened = subject.call("new_tab", url=None)
    precondition(opened.raised is None, "BR-TAB-002", f"new_tab(None) failed: {opened.describe()}")
    state = subject.state()
    # Whichever tab new_tab left in the background (a driver may open in the background) is the one to switch to.
    target = next((tab["id"] for tab in tabs_of(state) if tab.get("active") is not True), None)
    precondition(target is not None, "BR-TAB-002", "new_tab left no second tab")

    def switch() -> None:
        switched = subject.call("switch_tab", tab_id=target)
        precondition(switched.raised is None, "BR-TAB-003", f"switch_tab failed: {switched.describe()}")

    before, after = _observed_around(subject, switch)
    expect(
        _noticed(before, after, type="tab_switched", tab_id=target),
        "BR-OBS-010",
        f"switching to tab {target!r} added no tab_switched change naming it: {new_changes(before, after)!r}",
    )


@pytest.mark.page("forms.html")
@pytest.mark.hints(observation=True)
@pytest.mark.clause("BR-OBS-011")
def test_a_refused_navigation_is_observed(subject: BrowserSubject, env: Environment) -> None:
    subject.require("navigate")
    tab = the_active_tab(subject.state(), "state before navigate")

    def refused_navigation() -> None:
        outcome = subject.call("navigate", url=env.url("tabs-b.html", origin="other"), tab_id=None)
        precondition(outcome.raised is not None, "BR-NET-001", "navigate to a non-permitted origin was not refused")

    before, after = _observed_around(subject, refused_navigation)
    added = new_changes(before, after)
    expect(
        any(
            change.get("type") == "navigation_refused"
            and change.get("reason") == "policy"
            and change.get("tab_id") in (tab["id"], None)
            for change in added
        )
        or after["dropped_changes"] > before["sequence"],
        "BR-OBS-011",
        f"a navigation refused by the URL policy added no navigation_refused change (reason policy): {added!r}",
    )


@pytest.mark.page("forms.html")
@pytest.mark.hints(observation=True)
@pytest.mark.clause("BR-OBS-012")
def test_a_download_attempt_is_observed(subject: BrowserSubject, env: Environment) -> None:
    # The report on the permitted origin: a download whatever the browser makes of it (a link to another origin
    # with the download attribute is an ordinary navigation in Chromium). No grant was given, so a driver may
    # block it or let it run; either way the history says a download happened and what became of it.
    subject.require("navigate")

    def download_attempt() -> None:
        outcome = subject.call("navigate", url=env.url("download.html?auto=local-report"), tab_id=None)
        precondition(outcome.raised is None, "BR-NAV-001", f"navigating to download.html: {outcome.describe()}")
        attempt = env.poll_effect("attempt", effect_with(page="download.html"), 5.0)
        if attempt is None:
            not_provoked("download.html never recorded starting its download, so nothing was there to report")
        env.pause(0.5)  # the download's request, once started, is on its way
        env.settle()

    before, after = _observed_around(subject, download_attempt)
    expect(
        _noticed(before, after, type="download"),
        "BR-OBS-012",
        f"a download the page started added no download change: {new_changes(before, after)!r}",
    )


# The history bound the kit asks for; a driver may ignore it (then only the order of what it drops is judged).
HISTORY_HINT = 4


@pytest.mark.page("tabs-a.html")
@pytest.mark.hints(observation=True, limits={"history": HISTORY_HINT})
@pytest.mark.clause("BR-OBS-013")
def test_a_full_change_history_drops_its_oldest_changes(subject: BrowserSubject, env: Environment) -> None:
    subject.require("navigate")
    # Straight to the driver: the SDK reads state around each call and stops at a history it finds inconsistent,
    # which would blame the SDK's acceptance instead of the history rule this check is about.
    for index in range(HISTORY_HINT + 4):
        page = "tabs-b.html" if index % 2 == 0 else "tabs-a.html"
        try:
            subject.call_direct("navigate", {"url": env.url(page), "tab_id": None})
        except Exception as error:
            precondition_failed("BR-NAV-001", f"navigating to {page}: {type(error).__name__}")
    observation = observation_of(subject.state())
    changes, dropped, sequence = observation["changes"], observation["dropped_changes"], observation["sequence"]
    if dropped == 0:
        not_provoked(
            f"the history kept all {len(changes)} changes (the hint asked for {HISTORY_HINT}), so nothing was dropped"
        )
    listed = sorted(int(change.get("sequence", 0)) for change in changes)
    latest = list(range(sequence - len(changes) + 1, sequence + 1))
    expect(
        listed == latest and dropped == sequence - len(changes),
        "BR-OBS-013",
        f"with {dropped} changes dropped of {sequence}, the list holds sequences {listed}; the newest {len(changes)} "
        f"({latest}) should stay and the older ones count as dropped",
    )
