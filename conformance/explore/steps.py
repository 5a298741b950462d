"""The step vocabulary: what exploration asks of a driver, and what each step lets the kit expect afterwards.

A step names tabs by the model's names (``T1``, ``T2``...), never by a driver's IDs, so a shrunk sequence replays
on a fresh driver and reads the same in a certificate. Each step makes exactly one member call through the SDK,
reads state directly afterwards, and judges what the documents say that member does, blaming the clause that says
it; :meth:`Step.words` is the step as the certificate numbers it.

Where the documents leave the driver a choice, the step accepts either answer and the model takes the driver's:
which tab is active after ``new_tab`` (the new tab or the previous one, nothing else), after ``close_tab`` (any
remaining tab), and after a navigation that names a tab. A null ``tab_id`` then acts on the tab the driver itself
reported active (BR-TAB-008), which is how a state that misreports the active tab shows.

The kit's reading where the documents are brief: an ID whose tab was closed names no tab any more, so ``switch_tab``
and ``close_tab`` must refuse it like an ID never issued (BR-TAB-005) and other members like an unknown tab
(BR-TAB-007); and because an ID identifies one tab for the whole session (BR-TAB-006), a new tab never gets an ID
the session already issued, a closed tab's included.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from conformance.assertions import expect, violation
from conformance.contracts.browser._effects import other_origin_contacts
from conformance.contracts.browser._tabs import NEVER_ISSUED_TAB, active_tab, tab_by_id, tab_ids
from conformance.harness.errors import bounded

from .model import Blame, SessionModel, TabModel, expect_change, judge_tabs, new_changes, title_of
from .session import ExploredSession

# The permitted fixture pages a step may load, each with text only it shows (for reads of the active tab).
PAGES: dict[str, str] = {"tabs-a.html": "Tab page A", "tabs-b.html": "Tab page B", "blank.html": "An empty fixture"}
# The page a refused navigation asks for, on the origin the driver does not permit.
ELSEWHERE_PAGE = "tabs-b.html"
DIALOGS_PAGE = "dialogs.html"
# dialogs.html puts this marker in each dialog's message; state must never repeat it.
DIALOG_MARKER = "KIT-DIALOG-TEXT-4417"
DIALOG_KINDS = ("alert", "confirm", "prompt")
# How long the page's three dialogs get to return (a sync driver handles them only while one of its calls runs,
# so the step keeps reading state meanwhile, as check_dialogs does).
DIALOG_SECONDS = 10.0


def _tab_words(name: str | None) -> str:
    return "null" if name is None else name


def _renamed(name: str | None, rename: Callable[[str], str]) -> str | None:
    return None if name is None else rename(name)


class Step:
    """One member call of a sequence, with what the documents let the kit expect of it."""

    def words(self) -> str:
        """The step in the kit's words: the member and its arguments, tabs by the model's names."""
        raise NotImplementedError

    def perform(self, session: ExploredSession) -> None:
        """Make the call and judge what follows; a broken expectation raises the clause's violation."""
        raise NotImplementedError

    def possible(self, model: SessionModel) -> bool:
        """Whether the model allows the step now (the tabs it names are open, or closed, as it needs them).

        Generation only draws possible steps; a shrunk sequence that dropped the step opening a tab may not be.
        """
        return True

    def renamed(self, rename: Callable[[str], str]) -> Step:
        """The same step naming tabs by ``rename(name)``: the names a shorter sequence gives the same tabs."""
        return self

    def __str__(self) -> str:
        return self.words()


class _TabStep(Step):
    """A step naming a tab by ``tab`` (each subclass is a dataclass with that field)."""

    tab: str | None

    def renamed(self, rename: Callable[[str], str]) -> Step:
        # mypy cannot see that every subclass is a dataclass.
        return replace(self, tab=_renamed(self.tab, rename))  # type: ignore[type-var]


class _InOpenTab(_TabStep):
    """A step in the named open tab, or (None) the active one."""

    def possible(self, model: SessionModel) -> bool:
        return self.tab is None or self.tab in model.names()


@dataclass(frozen=True)
class Navigate(_InOpenTab):
    """navigate to a permitted fixture page, in the named tab or (None) the active one."""

    page: str
    tab: str | None

    def words(self) -> str:
        return f"navigate(url={self.page}, tab_id={_tab_words(self.tab)})"

    def perform(self, session: ExploredSession) -> None:
        model = session.tabs
        target = model.tab(self.tab) if self.tab is not None else model.active_tab()
        where, clause = self.words(), "BR-NAV-002" if self.tab is not None else "BR-NAV-001"
        earlier = model.observation
        position = session.position()
        outcome = session.call("navigate", url=session.env.url(self.page), tab_id=self.tab and target.id)
        session.expect_done(outcome, clause, where)
        session.await_load(position, self.page, clause, f"{where} returned")
        state = session.read(where)
        judge_landing(session, state, target, self.page, where, named=self.tab is not None)
        target.page, target.known = self.page, True
        judge_tabs(model, state, where, Blame("BR-TAB-006", "BR-NAV-003", "BR-NAV-002"), [target.name])
        if self.tab is None:
            # The tab it navigated is the tab it found active; it keeps being that tab (check_navigation's reading).
            _expect_active(state, target, "BR-TAB-006", where)
        _adopt_active(session, state)
        expect_change(earlier, model.observation, "navigation", target.id, "BR-OBS-006", where)


def judge_landing(
    session: ExploredSession, state: Any, target: TabModel, page: str, where: str, *, named: bool
) -> None:
    """The page loaded (its own record says so) in ``target``: not in another tab, and state says so."""
    wanted = title_of(page)
    others = [tab for tab in session.tabs.tabs if tab is not target and tab_by_id(state, tab.id) is not None]

    def showing(tab: TabModel) -> bool:
        return (tab_by_id(state, tab.id) or {}).get("title") == wanted

    # A tab that now shows the page and did not before is where it loaded, whatever the target shows (it may have
    # shown the same page already); failing that, a tab that showed it already may have loaded it again.
    moved = [tab for tab in others if showing(tab) and (tab.page != page or not tab.known)]
    shown = tab_by_id(state, target.id)
    if not moved and (shown is None or shown.get("title") == wanted):
        return  # a tab gone is judged with the other tabs
    instead = moved or [tab for tab in others if showing(tab)]
    if instead:
        violation(
            "BR-NAV-002" if named else "BR-TAB-008",
            f"{where} loaded {page} in {instead[0].name} ({instead[0].id!r}) instead of {target.name} "
            f"({target.id!r}), {'the tab it named' if named else 'the tab state reported active'}",
        )
    assert shown is not None
    violation(
        "BR-NAV-003",
        f"{page} loaded after {where}, but state reports {target.name} ({target.id!r}) with the title "
        f"{bounded(str(shown.get('title')), 40)!r} instead of {wanted!r}",
    )


def _expect_active(state: Any, tab: TabModel, clause: str, where: str) -> None:
    now = active_tab(state)
    expect(
        now is not None and now.get("id") == tab.id,
        clause,
        f"after {where} the active tab should be {tab.name} ({tab.id!r}) but state marks "
        f"{now and now.get('id')!r} active",
    )


def _adopt_active(session: ExploredSession, state: Any) -> None:
    """Take the driver's word for which tab is active, where the documents leave it to the driver."""
    now = active_tab(state)
    found = session.tabs.by_id(str(now["id"])) if now is not None else None
    if found is not None:
        session.tabs.active = found.name


@dataclass(frozen=True)
class NavigateElsewhere(_InOpenTab):
    """navigate to a page on an origin the driver does not permit: refused, and nothing reaches that origin."""

    tab: str | None

    def words(self) -> str:
        return f"navigate(url=<non-permitted origin>/{ELSEWHERE_PAGE}, tab_id={_tab_words(self.tab)})"

    def perform(self, session: ExploredSession) -> None:
        model = session.tabs
        target = model.tab(self.tab) if self.tab is not None else model.active_tab()
        where, active = self.words(), model.active_tab()
        # Every earlier step waited for the loads it caused, so any load recorded from here on is this step's.
        position = session.position()
        url = session.env.url(ELSEWHERE_PAGE, origin="other")
        outcome = session.call("navigate", url=url, tab_id=self.tab and target.id)
        session.expect_refused(outcome, "BR-NET-002", "the URL is on an origin the driver does not permit", where)
        session.settle()  # every page has reported what it saw: an absence is now known, not guessed
        contacts = other_origin_contacts(session.env)
        expect(not contacts, "BR-NET-001", f"{where} reached the non-permitted origin: {bounded(repr(contacts), 120)}")
        loads = session.loads_since(position)
        expect(not loads, "BR-NET-002", f"{where} was refused, yet a page loaded: {bounded(repr(loads), 120)}")
        state = session.read(where)
        judge_tabs(model, state, where, Blame("BR-NET-002", "BR-NET-002", "BR-NET-002"), [target.name])
        _expect_active(state, active, "BR-NET-002", where)


@dataclass(frozen=True)
class GoneTab(_TabStep):
    """A member given the ID of a closed tab (``tab``), or (None) one the driver never issued: refused, no effect."""

    member: str  # switch_tab, close_tab or navigate
    tab: str | None

    def words(self) -> str:
        named = "<never issued>" if self.tab is None else f"{self.tab} (closed)"
        url = f"url={ELSEWHERE_PAGE}, " if self.member == "navigate" else ""
        return f"{self.member}({url}tab_id={named})"

    def possible(self, model: SessionModel) -> bool:
        return self.tab is None or self.tab in [tab.name for tab in model.closed]

    def perform(self, session: ExploredSession) -> None:
        model = session.tabs
        where, active = self.words(), model.active_tab()
        tab_id = NEVER_ISSUED_TAB if self.tab is None else model.gone(self.tab).id
        clause = "BR-TAB-007" if self.member == "navigate" else "BR-TAB-005"
        arguments: dict[str, Any] = {"tab_id": tab_id}
        if self.member == "navigate":
            arguments["url"] = session.env.url(ELSEWHERE_PAGE)
        position = session.position()  # as in NavigateElsewhere: later loads are this step's
        outcome = session.call(self.member, **arguments)
        gone = "was never issued" if self.tab is None else f"belonged to {self.tab}, which is closed"
        session.expect_refused(outcome, clause, f"the tab ID {tab_id!r} {gone}", where)
        session.settle()
        loads = session.loads_since(position)
        expect(not loads, clause, f"{where} was refused, yet a page loaded: {bounded(repr(loads), 120)}")
        state = session.read(where)
        judge_tabs(model, state, where, Blame(clause, clause, clause))
        _expect_active(state, active, clause, where)


@dataclass(frozen=True)
class NewTab(Step):
    """new_tab with a permitted page, or (None) a blank one; ``name`` is the name the model gives the new tab."""

    page: str | None
    name: str

    def words(self) -> str:
        return f"new_tab(url={self.page or 'null'}) -> {self.name}"

    def possible(self, model: SessionModel) -> bool:
        return self.name == model.next_name()

    def renamed(self, rename: Callable[[str], str]) -> Step:
        return replace(self, name=rename(self.name))

    def perform(self, session: ExploredSession) -> None:
        model = session.tabs
        where, previous, earlier = self.words(), model.active_tab(), model.observation
        clause = "BR-TAB-001" if self.page is not None else "BR-TAB-002"
        position = session.position()
        outcome = session.call("new_tab", url=None if self.page is None else session.env.url(self.page))
        session.expect_done(outcome, clause, where)
        if self.page is not None:
            session.await_load(position, self.page, clause, f"{where} returned")
        state = session.read(where)
        added = [tab_id for tab_id in tab_ids(state) if tab_id not in model.ids()]
        expect(len(added) == 1, clause, f"{where} should add exactly one tab: {model.ids()} -> {tab_ids(state)}")
        reused = next((tab for tab in model.closed if tab.id == added[0]), None)
        expect(
            added[0] not in model.issued,
            "BR-TAB-006",
            f"{where} gave the new tab the ID {added[0]!r}, which "
            + (f"{reused.name} had until it was closed" if reused else "the session had already issued")
            + ": an ID names one tab for the whole session",
        )
        opened = model.adopt(added[0], self.page)
        assert opened.name == self.name, "the machine names new tabs the way the model does"
        judge_tabs(model, state, where, Blame("BR-TAB-006", clause, clause), [opened.name])
        now = active_tab(state)
        expect(
            now is not None and now.get("id") in (opened.id, previous.id),
            clause,
            f"after {where} state marks {now and now.get('id')!r} active; new_tab may leave the new tab "
            f"({opened.id!r}) or the previous one ({previous.id!r}) active, no other",
        )
        _adopt_active(session, state)
        expect_change(earlier, model.observation, "tab_opened", opened.id, "BR-OBS-007", where)


@dataclass(frozen=True)
class SwitchTab(Step):
    tab: str

    def words(self) -> str:
        return f"switch_tab(tab_id={self.tab})"

    def possible(self, model: SessionModel) -> bool:
        return self.tab in model.names()

    def renamed(self, rename: Callable[[str], str]) -> Step:
        return replace(self, tab=rename(self.tab))

    def perform(self, session: ExploredSession) -> None:
        model = session.tabs
        target, where = model.tab(self.tab), self.words()
        outcome = session.call("switch_tab", tab_id=target.id)
        session.expect_done(outcome, "BR-TAB-003", where)
        state = session.read(where)
        judge_tabs(model, state, where, Blame("BR-TAB-006", "BR-TAB-003", "BR-TAB-003"))
        _expect_active(state, target, "BR-TAB-003", where)
        model.active = target.name


@dataclass(frozen=True)
class CloseTab(Step):
    tab: str

    def words(self) -> str:
        return f"close_tab(tab_id={self.tab})"

    def possible(self, model: SessionModel) -> bool:
        # Never the last tab: whether a driver may close it, and what then shows, the documents do not say.
        return self.tab in model.names() and len(model.tabs) >= 2

    def renamed(self, rename: Callable[[str], str]) -> Step:
        return replace(self, tab=rename(self.tab))

    def perform(self, session: ExploredSession) -> None:
        model = session.tabs
        target, where, earlier = model.tab(self.tab), self.words(), model.observation
        outcome = session.call("close_tab", tab_id=target.id)
        session.expect_done(outcome, "BR-TAB-004", where)
        model.close(target.name)
        state = session.read(where)
        expect(
            target.id not in tab_ids(state),
            "BR-TAB-004",
            f"after {where} state still lists {target.name} ({target.id!r}): {tab_ids(state)}",
        )
        judge_tabs(model, state, where, Blame("BR-TAB-006", "BR-TAB-004", "BR-TAB-004"))
        _adopt_active(session, state)
        expect_change(earlier, model.observation, "tab_closed", target.id, "BR-OBS-007", where)


@dataclass(frozen=True)
class ReadText(Step):
    """get_page_text with a null tab_id: it reads the tab state reports active, and it is only a read."""

    def words(self) -> str:
        return "get_page_text(tab_id=null)"

    def perform(self, session: ExploredSession) -> None:
        model = session.tabs
        active, where = model.active_tab(), self.words()
        outcome = session.call("get_page_text", tab_id=None)
        session.expect_done(outcome, "BR-TAB-008", where)
        text = _text_of(outcome.raw)
        mine = PAGES.get(active.page or "") if active.known else None
        if text is not None and mine is not None and mine not in text:
            read = [tab for tab in model.tabs if tab.known and tab.page in PAGES and PAGES[tab.page] in text]
            expect(
                not read,
                "BR-TAB-008",
                f"{where} read the page of {read[0].name if read else '?'} ({read[0].page if read else '?'}) while "
                f"state reported {active.name} ({active.page}) active",
            )
        state = session.read(where)
        judge_tabs(model, state, where, Blame("BR-READ-021", "BR-READ-021", "BR-READ-021"))
        _expect_active(state, active, "BR-READ-021", where)


def _text_of(raw: Any) -> str | None:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, dict) and isinstance(raw.get("text"), str):
        return str(raw["text"])
    return None


@dataclass(frozen=True)
class ListTabs(Step):
    """list_tabs: a state read through the SDK, which consumes nothing."""

    def words(self) -> str:
        return "list_tabs()"

    def perform(self, session: ExploredSession) -> None:
        model = session.tabs
        where, earlier = self.words(), model.observation
        outcome = session.call("list_tabs")
        session.expect_accepted(outcome, where)
        state = session.read(where)
        later = model.observation
        if earlier is not None and later is not None and later["sequence"] == earlier["sequence"]:
            # Nothing new happened (pages may add changes of their own, which a later read then lists on top).
            expect(
                later == earlier,
                "BR-OBS-004",
                f"reading state through {where} changed the observation: {bounded(repr(earlier), 150)} -> "
                f"{bounded(repr(later), 150)}",
            )
        judge_tabs(model, state, where, Blame("BR-TAB-006", "BR-STATE-004", "BR-STATE-004"))
        _adopt_active(session, state)


@dataclass(frozen=True)
class VisitDialogs(Step):
    """navigate the active tab to dialogs.html, which asks alert, confirm and prompt as soon as it has loaded."""

    def words(self) -> str:
        return f"navigate(url={DIALOGS_PAGE}, tab_id=null)"

    def perform(self, session: ExploredSession) -> None:
        model = session.tabs
        target, where, earlier = model.active_tab(), self.words(), model.observation
        position = session.position()
        outcome = session.call("navigate", url=session.env.url(DIALOGS_PAGE), tab_id=None)
        session.expect_done(outcome, "BR-DLG-001", where)
        loaded = session.await_load(position, DIALOGS_PAGE, "BR-NAV-001", f"{where} returned")
        answers = _dialog_answers(session, loaded.get("instance"))
        expect(
            set(DIALOG_KINDS) <= set(answers),
            "BR-DLG-001",
            f"after {where} the page stayed blocked: only {sorted(answers)} of alert, confirm and prompt returned "
            f"within {DIALOG_SECONDS:g} s",
        )
        expect(
            answers["confirm"].get("result") is False,
            "BR-DLG-002",
            f"after {where} the page's confirm() returned {answers['confirm'].get('result')!r}, not false",
        )
        expect(
            answers["prompt"].get("result") is None,
            "BR-DLG-003",
            f"after {where} the page's prompt() returned {answers['prompt'].get('result')!r}, not null",
        )
        state = session.read(where)
        # Where the page loaded first: dialogs in another tab than expected are that tab's, not a notice's fault.
        judge_landing(session, state, target, DIALOGS_PAGE, where, named=False)
        expect(DIALOG_MARKER not in json.dumps(state), "BR-DLG-004", f"after {where} state repeats a dialog's text")
        notices = [change for change in new_changes(earlier, model.observation) if change["type"] == "dialog_dismissed"]
        wrong = [c for c in notices if c.get("kind") not in DIALOG_KINDS or c.get("tab_id") != target.id]
        expect(
            not wrong,
            "BR-DLG-004",
            f"after {where} dialog notices name another tab or a kind the page never asked "
            f"({target.name} is {target.id!r}): {bounded(repr(wrong), 160)}",
        )
        target.page, target.known = DIALOGS_PAGE, True
        judge_tabs(model, state, where, Blame("BR-TAB-006", "BR-NAV-003", "BR-NAV-002"), [target.name])
        _expect_active(state, target, "BR-TAB-006", where)


def _dialog_answers(session: ExploredSession, instance: Any) -> dict[str, dict[str, Any]]:
    """What each dialog of the page document ``instance`` returned, by kind, while the driver keeps working."""
    deadline = time.monotonic() + DIALOG_SECONDS
    while True:
        answers = {
            str(effect.get("dialog")): dict(effect)
            for effect in session.env.effects("dialog")
            if effect.get("instance") == instance
        }
        if len(answers) >= len(DIALOG_KINDS) or time.monotonic() >= deadline:
            return answers
        # A sync driver handles page events only while one of its methods runs: a direct state read lets it.
        session.subject.state()
        session.env.pause(0.05)
