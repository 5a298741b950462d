"""The session model: what the documents let the kit expect of a browser session after any sequence of members.

The model holds what the kit itself knows about one driver session, never what the driver claims: which tabs
exist (under names of the kit's own, ``T1`` for the tab the session started with, ``T2`` for the next one opened,
so a sequence reads the same in every session whatever IDs the driver gives out), which fixture page each tab
shows, which tab is active, every tab ID the driver has issued, and the last observation metadata it reported.

Where the documents leave a choice to the driver, the model takes the driver's answer instead of guessing: which
tab is active after ``new_tab`` (the new one or the previous one), after ``close_tab`` of the active tab (any
remaining one) or of a background tab. Everything else is judged against the documents, each judgement blamed on
the clause that states it:

- every state report keeps the state rules (string fields, unique IDs, one active tab: BR-STATE-001..003);
- the tabs are exactly the ones the model has, under the IDs they had (BR-TAB-006), each showing the title and
  origin of its page (BR-STATE-004, BR-URL-002), a blank tab showing ``about:blank`` (BR-TAB-002);
- observation metadata, when the driver reports it, keeps its shape (BR-OBS-001..003) and its history: counters
  never decrease and a change still listed never changes (BR-OBS-005).

Step-specific judgements (which tab a navigation must land in, which change a member must add) are the steps'
own (:mod:`conformance.explore.steps`); they use the comparisons here with the clause that step is about.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance.assertions import expect, violation
from conformance.contracts.browser._tabs import active_tab, tab_by_id, tab_ids, tabs_of
from conformance.contracts.browser.check_observation import (
    check_changes,
    check_history,
    check_observation_shape,
    fixture_title,
)
from conformance.contracts.browser.check_state import origin_of
from conformance.harness.errors import bounded
from conformance.harness.state_rules import broken_rule

# The page a blank tab shows: the documents keep this URL in both state forms.
BLANK = "about:blank"


@functools.cache
def title_of(page: str) -> str:
    """The title a fixture page's file declares: the kit's own source of truth for what a tab must report."""
    return fixture_title(page)


@dataclass
class TabModel:
    """One tab as the kit knows it.

    ``page`` is the fixture page it shows (a file name), or None for a blank page. ``known`` is False for a tab the
    driver's factory opened besides the start tab: the kit never told it what to show, so its page is not judged.
    """

    name: str
    id: str
    page: str | None
    known: bool = True

    def shows(self) -> str:
        """What the tab shows, in the words of a reason."""
        if not self.known:
            return "a page the factory opened"
        return self.page or BLANK


@dataclass
class SessionModel:
    """The tabs, pages and history of one driver session, as the documents let the kit expect them."""

    origin: str  # the permitted origin the fixture pages are served from
    tabs: list[TabModel]  # the open tabs, in the order they were opened
    active: str  # the name of the active tab
    closed: list[TabModel] = field(default_factory=list)
    issued: set[str] = field(default_factory=set)  # every tab ID the session has reported, closed tabs' included
    observation: dict[str, Any] | None = None  # the last observation metadata read; None if the driver has none
    first: str = "T1"
    _opened: int = 0

    @classmethod
    def opened_on(cls, state: Any, start_page: str, origin: str) -> SessionModel:
        """The model of a session whose first state is ``state``, its active tab showing ``start_page``."""
        first = active_tab(state)
        assert first is not None, "the caller checked the state rules first"
        model = cls(origin, [], "")
        model.active = model.adopt(str(first["id"]), start_page).name
        model.first = model.active
        for tab in tabs_of(state):
            if tab["id"] != first["id"]:
                model.adopt(str(tab["id"]), None).known = False
        observation = state.get("observation") if isinstance(state, Mapping) else None
        model.observation = dict(observation) if isinstance(observation, Mapping) else None
        return model

    def adopt(self, tab_id: str, page: str | None) -> TabModel:
        """A tab the session opened, named after the number of tabs opened so far."""
        self._opened += 1
        tab = TabModel(f"T{self._opened}", tab_id, page)
        self.tabs.append(tab)
        self.issued.add(tab_id)
        return tab

    def next_name(self) -> str:
        return f"T{self._opened + 1}"

    def tab(self, name: str) -> TabModel:
        found = next((tab for tab in self.tabs if tab.name == name), None)
        if found is None:
            raise KeyError(f"{name} is not an open tab of this session")
        return found

    def gone(self, name: str) -> TabModel:
        found = next((tab for tab in self.closed if tab.name == name), None)
        if found is None:
            raise KeyError(f"{name} is not a closed tab of this session")
        return found

    def active_tab(self) -> TabModel:
        return self.tab(self.active)

    def by_id(self, tab_id: str) -> TabModel | None:
        return next((tab for tab in self.tabs if tab.id == tab_id), None)

    def close(self, name: str) -> None:
        tab = self.tab(name)
        self.tabs.remove(tab)
        self.closed.append(tab)

    def names(self) -> list[str]:
        return [tab.name for tab in self.tabs]

    def ids(self) -> list[str]:
        return [tab.id for tab in self.tabs]

    def describe(self) -> str:
        """The open tabs as the model has them, for a reason: ``T1 tabs-a.html (active), T2 about:blank``."""
        return ", ".join(
            f"{tab.name} {tab.shows()}{' (active)' if tab.name == self.active else ''}" for tab in self.tabs
        )


# ----- judgements every state report gets --------------------------------------------------------------------


def judge_state_rules(state: Any, where: str) -> None:
    """The state rules (BR-STATE-001..003), each failing its own clause."""
    rule = broken_rule(state)
    if rule is not None:
        violation(rule.clause, f"after {where}, {rule.detail}")


def judge_observation(model: SessionModel, state: Mapping[str, Any], where: str) -> dict[str, Any] | None:
    """The observation metadata of ``state`` judged on its own and against the last one read; returns it.

    Nothing is judged for a driver that never reported observation metadata (the documents make it optional).
    """
    if model.observation is None:
        return None
    observation = state.get("observation")
    expect(
        isinstance(observation, Mapping),
        "BR-OBS-001",
        f"after {where}, state() stopped reporting the observation metadata it reported before",
    )
    assert isinstance(observation, Mapping)
    current = dict(observation)
    check_observation_shape(current, f"after {where}")
    check_changes(current, state, None, f"after {where}")
    check_history(model.observation, current, where)
    return current


def new_changes(earlier: Mapping[str, Any] | None, later: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Changes ``later`` lists that came after everything ``earlier`` had counted."""
    if earlier is None or later is None:
        return []
    return [dict(change) for change in later["changes"] if change.get("sequence", 0) > earlier["sequence"]]


def expect_change(
    earlier: Mapping[str, Any] | None,
    later: Mapping[str, Any] | None,
    kind: str,
    tab_id: str,
    clause: str,
    what: str,
) -> None:
    """``later`` lists a ``kind`` change naming ``tab_id`` that ``earlier`` had not counted, or has dropped changes
    since ``earlier`` (a bounded history may have let it go)."""
    if earlier is None or later is None:
        return
    added = new_changes(earlier, later)
    expect(
        any(change.get("type") == kind and change.get("tab_id") == tab_id for change in added)
        or later["dropped_changes"] > earlier["sequence"],
        clause,
        f"{what} added no {kind} change naming {tab_id!r} (new changes: {bounded(repr(added), 160)})",
    )


# ----- comparing the tabs of a state report with the model ---------------------------------------------------


@dataclass(frozen=True)
class Blame:
    """The clause a step blames for each way the tabs can differ from the model.

    ``tabs``: a tab appeared, disappeared or changed its ID; ``touched``: a tab the step acted on does not show
    what the step gave it; ``untouched``: another tab's page changed.
    """

    tabs: str
    touched: str
    untouched: str


def judge_tabs(
    model: SessionModel,
    state: Any,
    where: str,
    blame: Blame,
    touched: Iterable[str] = (),
) -> None:
    """The open tabs of ``state`` are the model's, under their IDs, each showing its page.

    ``touched`` names the tabs the step acted on. The active tab is not judged here: steps that fix it judge it.
    """
    reported = tab_ids(state)
    expected = model.ids()
    missing = [tab for tab in model.tabs if tab.id not in reported]
    extra = [tab_id for tab_id in reported if model.by_id(tab_id) is None]
    expect(
        not missing and not extra,
        blame.tabs,
        f"after {where} state lists tabs {reported}, expected {expected} ({model.describe()})"
        + (f"; {', '.join(f'{tab.name} ({tab.id!r})' for tab in missing)} gone" if missing else "")
        + (f"; {extra} new" if extra else ""),
    )
    acted = set(touched)
    # The tabs the step acted on first: a page that loaded in the wrong tab shows there before it shows elsewhere.
    for tab in sorted(model.tabs, key=lambda tab: tab.name not in acted):
        clause = blame.touched if tab.name in acted else blame.untouched
        judge_page(model, state, tab, where, clause)


def judge_page(model: SessionModel, state: Any, tab: TabModel, where: str, clause: str) -> None:
    """``tab`` reports the title and origin of the page the model says it shows."""
    if not tab.known:
        return
    reported = tab_by_id(state, tab.id)
    assert reported is not None, "judge_tabs compared the IDs first"
    url, title = str(reported.get("url", "")), str(reported.get("title", ""))
    if tab.page is None:
        expect(
            url == BLANK,
            clause,
            f"after {where} {tab.name} ({tab.id!r}) should show a blank page ({BLANK}) but reports "
            f"{bounded(url, 60)!r}, titled {bounded(title, 40)!r}",
        )
        return
    wanted = title_of(tab.page)
    if title == wanted:
        # The right page, reported under another origin: the URL is what is wrong, not the page.
        expect(
            origin_of(url) == model.origin,
            "BR-URL-002",
            f"after {where} {tab.name} ({tab.id!r}) shows {tab.page} from {model.origin} but reports the URL origin "
            f"{bounded(origin_of(url), 60)!r}",
        )
        return
    elsewhere = [
        other.name for other in model.tabs if other is not tab and _reports(tab_by_id(state, other.id), wanted)
    ]
    violation(
        clause,
        f"after {where} {tab.name} ({tab.id!r}) should show {tab.page} (titled {wanted!r}) but reports the title "
        f"{bounded(title, 40)!r}" + (f"; {' and '.join(elsewhere)} shows that title instead" if elsewhere else ""),
    )


def _reports(tab: Mapping[str, Any] | None, title: str) -> bool:
    return tab is not None and tab.get("title") == title
