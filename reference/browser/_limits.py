"""Bounds on the work and report sizes of the reference browser driver."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class BrowserLimits:
    """Driver-owned limits (spec/000 "Return a structured page read": the driver bounds its own work).

    Exceeding a read limit yields a partial report with the matching omission code, never a hang or an error.
    """

    work_nodes: int = 100_000  # elements one read may visit before reporting work_limit
    text_bytes: int = 200_000  # UTF-8 bytes of page text per read (text_limit)
    max_elements: int = 5_000  # controls per read (target_limit)
    max_options: int = 200  # options per select control (report_limit)
    history: int = 64  # retained observation changes; older ones count as dropped_changes
    diagnostics_history: int = 200  # console and network records kept per tab
    dialog_burst: int = 20  # dialogs within dialog_window_s before the tab is closed as abusive
    dialog_window_s: float = 2.0
    navigation_timeout_ms: int = 30_000
    action_timeout_ms: int = 10_000

    def with_overrides(self, overrides: Mapping[str, int]) -> BrowserLimits:
        """A copy with named limits replaced; unknown names are an error, not silently ignored."""
        known = {item.name for item in fields(self)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ValueError(f"Unknown browser limits: {', '.join(unknown)}")
        return replace(self, **dict(overrides))
