"""Browser drivers whose one defect shows only over a sequence of members, for proving exploration finds them.

Each wraps the reference driver with :class:`tests.broken.drivers.BrokenDriver`, exactly like the single-defect
drivers there, but its defect needs several steps to appear: a second tab, a tab closed earlier, a switch before a
navigation. The single-situation checks pass every one of them (each check opens at most the tabs it needs and
judges the members it calls); only exploration (``check_exploration``) meets the sequence that breaks the clause.
``test_sequence_drivers.py`` (in tests/conformance/contracts/browser) says which clause each must fail::

    pytest --driver=tests.broken.sequence_drivers:reuses_closed_tab_ids --certificate=out -k exploration
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

from conformance.harness.environment import Environment
from tests.broken.drivers import Arguments, BrokenDriver, Forward, NavigateReturnsBeforeLoad, factory_for


def _observation(state: Any) -> dict[str, Any] | None:
    observation = state.get("observation") if isinstance(state, dict) else None
    return observation if isinstance(observation, dict) else None


class _RenamesChanges(BrokenDriver):
    """A driver that reports chosen tab IDs in some of its change notices, by the change's sequence number.

    The rename is kept for good, so the history stays the same from one read to the next (every other rule of the
    observation metadata still holds): only the tab a notice names is wrong.
    """

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.renamed: dict[int, str] = {}  # change sequence -> the tab ID reported instead

    def sequence(self) -> int:
        observation = _observation(self.reference_state())
        return int(observation["sequence"]) if observation else 0

    def rename_new(self, since: int, kind: str, tab_id: str, instead: str) -> None:
        """Report ``instead`` in the ``kind`` changes naming ``tab_id`` that came after ``since``."""
        observation = _observation(self.reference_state()) or {"changes": []}
        for change in observation["changes"]:
            if change["sequence"] > since and change["type"] == kind and change.get("tab_id") == tab_id:
                self.renamed[int(change["sequence"])] = instead

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        for change in (_observation(state) or {"changes": []})["changes"]:
            if change["sequence"] in self.renamed:
                change["tab_id"] = self.renamed[change["sequence"]]
        return state


class ReusesClosedTabIds(BrokenDriver):
    """A tab opened after a tab was closed gets the closed tab's ID: the driver numbers its tabs by free slot.

    The IDs it reports are translated from the reference's own, in state, in change notices and in arguments, so
    each open tab still has one ID and every member works; an ID just stops naming one tab for the whole session.
    """

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.outer: dict[str, str] = {}  # the reference's ID -> the ID reported for it (closed tabs' kept)
        self.free: list[str] = []  # IDs of closed tabs, handed out again

    def reported(self, inner_id: str) -> str:
        if inner_id not in self.outer:
            self.outer[inner_id] = self.free.pop(0) if self.free else inner_id
        return self.outer[inner_id]

    def inner_id(self, reported: Any) -> Any:
        """The reference's ID of the open tab reported as ``reported`` (unknown IDs pass through, to be refused)."""
        open_ids = [tab["id"] for tab in self.inner.state()["tabs"]]
        return next((inner for inner in open_ids if self.reported(inner) == reported), reported)

    def wrap(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def member(*args: Any, **kwargs: Any) -> Any:
            if name == "state":
                return self.translated_state(method(*args, **kwargs))
            arguments = dict(args[0])
            if arguments.get("tab_id") is not None:
                arguments["tab_id"] = self.inner_id(arguments["tab_id"])
            result = method(arguments, *args[1:], **kwargs)
            if name == "close_tab":
                self.free.append(self.reported(str(arguments["tab_id"])))
            return result

        return member

    def translated_state(self, state: Any) -> Any:
        state = copy.deepcopy(state)
        for tab in state["tabs"]:
            tab["id"] = self.reported(str(tab["id"]))
        for change in (_observation(state) or {"changes": []})["changes"]:
            if isinstance(change.get("tab_id"), str):
                change["tab_id"] = self.reported(change["tab_id"])
        return state


class ClosedTabIdsStillAccepted(BrokenDriver):
    """switch_tab and close_tab given the ID of a tab closed earlier report success and do nothing.

    IDs never issued are still refused (the reference does that); only an ID the driver once gave out is taken.
    """

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.closed: set[str] = set()

    def broken_close_tab(self, arguments: Arguments, forward: Forward) -> Any:
        if arguments.get("tab_id") in self.closed:
            return "Closed."
        result = forward(arguments)
        self.closed.add(str(arguments["tab_id"]))
        return result

    def broken_switch_tab(self, arguments: Arguments, forward: Forward) -> Any:
        if arguments.get("tab_id") in self.closed:
            return "Switched."
        return forward(arguments)


class NamedNavigationAfterASwitch(BrokenDriver):
    """Once switch_tab has been used, navigate loads its page in the active tab whichever tab it names.

    Before any switch, a navigation that names a background tab loads there, as it should.
    """

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.switched = False

    def broken_switch_tab(self, arguments: Arguments, forward: Forward) -> Any:
        result = forward(arguments)
        self.switched = True
        return result

    def broken_navigate(self, arguments: Arguments, forward: Forward) -> Any:
        known = [tab["id"] for tab in self.reference_state()["tabs"]]
        if self.switched and arguments.get("tab_id") in known:
            return forward({**arguments, "tab_id": None})
        return forward(arguments)


class BackgroundCloseMovesTheActiveFlag(BrokenDriver):
    """Closing a background tab while two others stay open marks another of them active in state, though the
    browser keeps the tab that was active: a null tab_id then acts on a tab state does not call active.

    The next switch_tab, new_tab or close_tab that succeeds makes state truthful again.
    """

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.claimed: str | None = None

    def broken_close_tab(self, arguments: Arguments, forward: Forward) -> Any:
        active = self.active_tab_id()
        result = forward(arguments)
        self.claimed = None
        remaining = [str(tab["id"]) for tab in self.reference_state()["tabs"]]
        if arguments.get("tab_id") != active and len(remaining) >= 2:
            self.claimed = next(tab_id for tab_id in remaining if tab_id != active)
        return result

    def broken_switch_tab(self, arguments: Arguments, forward: Forward) -> Any:
        result = forward(arguments)
        self.claimed = None
        return result

    def broken_new_tab(self, arguments: Arguments, forward: Forward) -> Any:
        result = forward(arguments)
        self.claimed = None
        return result

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        if self.claimed is not None and self.claimed in [tab["id"] for tab in state["tabs"]]:
            for tab in state["tabs"]:
                tab["active"] = tab["id"] == self.claimed
        return state


class NavigationNoticeNamesTheActiveTab(_RenamesChanges):
    """A navigation that names a background tab loads there, but its navigation notice names the active tab."""

    def broken_navigate(self, arguments: Arguments, forward: Forward) -> Any:
        since, active = self.sequence(), self.active_tab_id()
        result = forward(arguments)
        target = arguments.get("tab_id")
        if target is not None and active is not None and target != active:
            self.rename_new(since, "navigation", str(target), active)
        return result


class BackgroundCloseNoticeNamesTheActiveTab(_RenamesChanges):
    """Closing a background tab closes it, but its tab_closed notice names the active tab instead."""

    def broken_close_tab(self, arguments: Arguments, forward: Forward) -> Any:
        since, active = self.sequence(), self.active_tab_id()
        result = forward(arguments)
        target = arguments.get("tab_id")
        if active is not None and target != active:
            self.rename_new(since, "tab_closed", str(target), active)
        return result


class DialogNoticesNameTheFirstTab(BrokenDriver):
    """Every dialog_dismissed notice names the session's first tab, whichever tab's page asked the dialog."""

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.first: str | None = None

    def broken_state(self, forward: Forward) -> Any:
        state = copy.deepcopy(forward())
        if self.first is None and state["tabs"]:
            self.first = str(state["tabs"][0]["id"])
        for change in (_observation(state) or {"changes": []})["changes"]:
            if change["type"] == "dialog_dismissed" and self.first is not None:
                change["tab_id"] = self.first
        return state


# ----- not a defect ------------------------------------------------------------------------------------------


class ReturnsBeforeLoadFromAnyPage(NavigateReturnsBeforeLoad):
    """Not a defect: navigate returns before the new page has loaded, from any page (exploration must accept it).

    ``NavigateReturnsBeforeLoad`` starts the navigation with a page script, which the reference runs only in pages
    of a permitted origin; exploration also navigates blank tabs, which this variant navigates the reference's way.
    """

    def broken_navigate(self, arguments: Arguments, forward: Forward) -> Any:
        tab_id = arguments.get("tab_id") or self.active_tab_id()
        shown = next((tab for tab in self.reference_state()["tabs"] if tab["id"] == tab_id), None)
        if shown is not None and shown["url"] == "about:blank":
            return forward(arguments)
        return super().broken_navigate(arguments, forward)


class PageTextNeedsAMainElement(BrokenDriver):
    """get_page_text reads only the page's <main> element and raises on a page without one (as a reader written for
    its own site does): a member that fails from the start page, in no sequence at all. Its own checks fail it;
    exploration must not blame a tab rule for it."""

    def broken_get_page_text(self, arguments: Arguments, forward: Forward) -> Any:
        raise RuntimeError("the page has no <main> element to read")


reuses_closed_tab_ids = factory_for(ReusesClosedTabIds)
closed_tab_ids_still_accepted = factory_for(ClosedTabIdsStillAccepted)
named_navigation_after_a_switch = factory_for(NamedNavigationAfterASwitch)
background_close_moves_the_active_flag = factory_for(BackgroundCloseMovesTheActiveFlag)
navigation_notice_names_the_active_tab = factory_for(NavigationNoticeNamesTheActiveTab)
background_close_notice_names_the_active_tab = factory_for(BackgroundCloseNoticeNamesTheActiveTab)
dialog_notices_name_the_first_tab = factory_for(DialogNoticesNameTheFirstTab)
returns_before_load_from_any_page = factory_for(ReturnsBeforeLoadFromAnyPage)
page_text_needs_a_main_element = factory_for(PageTextNeedsAMainElement)
