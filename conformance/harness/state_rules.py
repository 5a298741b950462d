"""The documents' rules for one state report, judged the same way by the state checks and at every point of use.

A state report is the ground every browser check stands on: which tab is active, where it is. When a report
breaks one of these rules, the state checks fail that rule's clause; every other check that meets the same
report (directly, or because the SDK rejected it around a call) is blocked by that clause instead of failing
its own (see :class:`conformance.assertions.PreconditionFailed`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple


class BrokenRule(NamedTuple):
    """The clause a state report breaks first, and how."""

    clause: str
    detail: str


def broken_rule(state: Any) -> BrokenRule | None:
    """The first rule ``state`` breaks, in the order a driver author would fix them, or None.

    BR-STATE-001: a mapping whose ``tabs`` list holds mappings with string ``id``, ``title`` and ``url`` and a
    Boolean ``active``; BR-STATE-002: no repeated tab ID; BR-STATE-003: exactly one active tab whenever there is
    any tab.
    """
    if not isinstance(state, Mapping) or not isinstance(state.get("tabs"), list):
        return BrokenRule("BR-STATE-001", f"state() must return a dict with a tabs list, got {state!r}"[:300])
    tabs = state["tabs"]
    for index, tab in enumerate(tabs):
        if not isinstance(tab, Mapping):
            return BrokenRule("BR-STATE-001", f"tab {index} is not a dict")
        for key in ("id", "title", "url"):
            if not isinstance(tab.get(key), str):
                return BrokenRule(
                    "BR-STATE-001", f"tab {index} {key} must be a string, got {type(tab.get(key)).__name__}"
                )
        if type(tab.get("active")) is not bool:
            return BrokenRule("BR-STATE-001", f"tab {index} active must be a bool, got {tab.get('active')!r}")
    ids = [str(tab["id"]) for tab in tabs]
    if len(ids) != len(set(ids)):
        return BrokenRule("BR-STATE-002", f"repeated tab IDs {ids}")
    active = sum(1 for tab in tabs if tab["active"] is True)
    if tabs and active != 1:
        return BrokenRule("BR-STATE-003", f"{active} of {len(tabs)} tabs are active; exactly one must be")
    return None


# The largest integer a JavaScript number holds exactly: counters beyond it cannot cross the Node SDK intact.
MAX_COUNTER = 9_007_199_254_740_991


def is_counter(value: object) -> bool:
    """A nonnegative integer (not a bool, not a float such as NaN) within :data:`MAX_COUNTER`."""
    return type(value) is int and 0 <= value <= MAX_COUNTER


def broken_observation_rule(observation: Any) -> BrokenRule | None:
    """BR-OBS-001, the shape of observation metadata V1: version 1, counters for sequence and dropped_changes, a
    Boolean title_truncated and a list of changes; the first part broken, or None."""
    if not isinstance(observation, Mapping):
        return BrokenRule("BR-OBS-001", "observation is not a dict")
    if type(observation.get("version")) is not int or observation.get("version") != 1:
        return BrokenRule("BR-OBS-001", f"observation version must be 1, got {observation.get('version')!r}")
    for key in ("sequence", "dropped_changes"):
        if not is_counter(observation.get(key)):
            return BrokenRule("BR-OBS-001", f"{key} must be a nonnegative integer, got {observation.get(key)!r}")
    if type(observation.get("title_truncated")) is not bool:
        return BrokenRule("BR-OBS-001", f"title_truncated must be a bool, got {observation.get('title_truncated')!r}")
    if not isinstance(observation.get("changes"), list):
        return BrokenRule("BR-OBS-001", "changes must be a list")
    return None
