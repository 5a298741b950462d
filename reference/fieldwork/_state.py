"""Tab state for the single Fieldwork tab: a sanitized URL, a bounded title and observation metadata.

Fieldwork shows one page in one tab, so the state is small; what matters is that it never reports credentials,
queries or fragments (spec/000, "Driver contract") and that observation metadata only grows (spec/004,
``BrowserObservationV1``).
"""

from __future__ import annotations

from collections import deque
from typing import Final
from urllib.parse import urlsplit, urlunsplit

from openai.lib.browser import BrowserObservationV1, BrowserState, BrowserStateChange

TAB_ID: Final = "fieldwork"
TITLE_LIMIT_BYTES: Final = 1024
_KEPT_CHANGES: Final = 32


def reported_url(url: str) -> str:
    """The page URL without userinfo, query or fragment; anything but HTTP(S) becomes ``about:blank``."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "about:blank"
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path or "/", "", ""))


def bounded_title(title: str) -> tuple[str, bool]:
    """``title`` cut to at most 1,024 UTF-8 bytes at a character boundary, and whether it was cut."""
    encoded = title.encode("utf-8")
    if len(encoded) <= TITLE_LIMIT_BYTES:
        return title, False
    return encoded[:TITLE_LIMIT_BYTES].decode("utf-8", "ignore"), True


class ObservationLog:
    """Navigation changes seen in the Fieldwork tab, with a bounded history and counters that never decrease."""

    def __init__(self) -> None:
        self._sequence = 0
        self._dropped = 0
        self._changes: deque[BrowserStateChange] = deque()

    def navigated(self) -> None:
        self._sequence += 1
        self._changes.append({"type": "navigation", "sequence": self._sequence, "tab_id": TAB_ID})
        while len(self._changes) > _KEPT_CHANGES:
            self._changes.popleft()
            self._dropped += 1

    def observation(self, title_truncated: bool) -> BrowserObservationV1:
        return {
            "version": 1,
            "sequence": self._sequence,
            "dropped_changes": self._dropped,
            "title_truncated": title_truncated,
            "changes": list(self._changes),
        }


def tab_state(url: str, title: str, log: ObservationLog | None) -> BrowserState:
    """The state report: one active tab, plus observation metadata when ``log`` is given."""
    shown_title, cut = bounded_title(title) if log is not None else (title, False)
    state: BrowserState = {
        "tabs": [{"id": TAB_ID, "title": shown_title, "url": reported_url(url), "active": True}],
    }
    if log is not None:
        state["observation"] = log.observation(cut)
    return state
