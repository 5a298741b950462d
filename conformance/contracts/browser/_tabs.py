"""Reading the tab list of a reported browser state, the same way in every check.

A state whose tab list breaks the invariants (exactly one active tab, unique string IDs) is judged by the state
checks themselves; every other check asks "which tab is active?" and gets None when the answer is not one tab,
rather than guessing the first of several.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


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
