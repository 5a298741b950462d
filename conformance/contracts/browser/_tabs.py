"""Tabs: reading the tab list of a reported browser state the same way in every check, and judging it.

A state whose tab list breaks the invariants (exactly one active tab, unique string IDs) is judged by the state
checks themselves; every other check asks "which tab is active?" and gets None when the answer is not one tab,
rather than guessing the first of several, or stands on the state (:func:`the_active_tab`,
:func:`expect_valid_state`) and is blocked by the state rule it breaks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conformance.assertions import precondition_failed, violation
from conformance.harness.errors import describe_error
from conformance.harness.state_rules import broken_rule
from conformance.harness.subject import BrowserSubject

# The longest title a state with observation metadata reports, in UTF-8 bytes; a longer one is cut.
TITLE_BYTES = 1024


def is_title_cut(title: str, full: str) -> bool:
    """Whether ``title`` is a cut of the page title ``full`` that the documents allow: a prefix (so it ends on a
    character boundary) within :data:`TITLE_BYTES` UTF-8 bytes."""
    return full.startswith(title) and len(title.encode("utf-8", errors="surrogatepass")) <= TITLE_BYTES


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


def current_state(subject: BrowserSubject, clause: str) -> Any:
    """state() read directly; failing to report state is a failure of ``clause``."""
    try:
        return subject.state()
    except Exception as error:
        violation(clause, f"state() raised {describe_error(error)}")


def expect_valid_state(subject: BrowserSubject, clause: str, after: str) -> Any:
    """state() read directly, standing on the state rules: a report that breaks one blocks the check on it."""
    state = current_state(subject, clause)
    rule = broken_rule(state)
    if rule is not None:
        precondition_failed(rule.clause, f"after {after}, state() is inconsistent: {rule.detail}")
    return state


def the_active_tab(state: Any, where: str) -> dict[str, Any]:
    """The one active tab of a state a check stands on; a state that breaks a state rule blocks the check."""
    rule = broken_rule(state)
    if rule is not None:
        precondition_failed(rule.clause, f"{where}: {rule.detail}")
    tab = active_tab(state)
    if tab is None:
        precondition_failed("BR-STATE-003", f"{where}: the driver shows a page but reports no tab")
    return tab
