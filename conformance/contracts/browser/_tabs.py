"""Tabs: reading the tab list of a reported browser state the same way in every check, and judging it.

A state whose tab list breaks the invariants (exactly one active tab, unique string IDs) is judged by the state
checks themselves; every other check asks "which tab is active?" and gets None when the answer is not one tab,
rather than guessing the first of several.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.assertions import expect, violation
from conformance.harness.errors import describe_error
from conformance.harness.subject import BrowserSubject


def tabs_of(state: Any) -> list[dict[str, Any]]:
    """The state's tabs as plain dicts (entries that are not mappings are left out)."""
    tabs = state.get("tabs") if isinstance(state, Mapping) else None
    return [dict(tab) for tab in tabs if isinstance(tab, Mapping)] if isinstance(tabs, list) else []


def active_tab(state: Any) -> dict[str, Any] | None:
    """The one active tab, or None when no tab or several tabs say they are active."""
    active = [tab for tab in tabs_of(state) if tab.get("active") is True]
    return active[0] if len(active) == 1 else None


def tab_ids(state: Any) -> list[str]:
    return [str(tab.get("id")) for tab in tabs_of(state)]


def tab_by_id(state: Any, tab_id: str) -> dict[str, Any] | None:
    return next((tab for tab in tabs_of(state) if tab.get("id") == tab_id), None)


NEVER_ISSUED_TAB = "driverkit-never-issued-tab-7f3a"


def state_problem(state: Any) -> str | None:
    """Why ``state`` breaks the tab invariants (unique string IDs, exactly one active tab), or None."""
    tabs = tabs_of(state)
    ids = [tab.get("id") for tab in tabs]
    if not all(isinstance(tab_id, str) for tab_id in ids):
        return f"tab IDs are not all strings: {ids!r}"
    if len(set(ids)) != len(ids):
        return f"tab IDs repeat: {ids!r}"
    active = sum(1 for tab in tabs if tab.get("active") is True)
    if tabs and active != 1:
        return f"{active} tabs are marked active"
    return None


def current_state(subject: BrowserSubject, clause: str) -> Any:
    """state() read directly; failing to report state is a failure of ``clause``."""
    try:
        return subject.state()
    except Exception as error:
        violation(clause, f"state() raised {describe_error(error)}")


def expect_valid_state(subject: BrowserSubject, clause: str, after: str) -> Any:
    state = current_state(subject, clause)
    problem = state_problem(state)
    expect(problem is None, clause, f"after {after}, state() is inconsistent: {problem}")
    return state
