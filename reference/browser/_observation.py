"""State projection: tab URLs and titles as the documents allow them, and the bounded change history.

spec/000 "Driver contract": state reports HTTP(S) origins only (no credentials, path, query or fragment); legacy
state keeps ``about:blank`` and only the scheme of other URLs; V1 observation metadata truncates titles to 1,024
UTF-8 bytes at a character boundary and says so in ``title_truncated``. spec/004 ``BrowserObservationV1``: the
history is driver-owned, bounded and non-consuming, and its notices never carry raw URLs, dialog text or names.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Any, Final
from urllib.parse import urlsplit

from openai.lib.browser import BrowserObservationV1, BrowserStateChange

TITLE_LIMIT_BYTES: Final = 1024
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """Replace unpaired surrogates (possible in page strings) so the SDK's Unicode checks accept the text."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def truncate_utf8(text: str, limit: int) -> tuple[str, bool]:
    """Cut ``text`` to at most ``limit`` UTF-8 bytes without splitting a character."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", errors="ignore"), True


def display_origin(url: str) -> str | None:
    """``scheme://host[:port]`` of an HTTP(S) URL with any userinfo removed, or None for other schemes."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    default = 80 if scheme == "http" else 443
    return f"{scheme}://{host}" if port in (None, default) else f"{scheme}://{host}:{port}"


def observed_url(url: str) -> str:
    """The URL shown in V1 state: an HTTP(S) origin or about:blank (error and internal pages show as blank)."""
    return display_origin(url) or "about:blank"


def legacy_url(url: str) -> str:
    """The URL shown in legacy state: an HTTP(S) origin, about:blank, or just the scheme."""
    origin = display_origin(url)
    if origin is not None:
        return origin
    if url == "about:blank" or not url:
        return "about:blank"
    scheme = urlsplit(url).scheme
    return f"{scheme}:" if scheme else "about:blank"


class ChangeLog:
    """A bounded history of state changes with gapless sequence numbers.

    Reading it never consumes it: every state report repeats the retained changes, and the oldest fall off
    into ``dropped_changes`` once ``capacity`` is reached, which keeps ``sequence == dropped + len(changes)``.
    """

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._changes: deque[dict[str, Any]] = deque()
        self._sequence = 0
        self._dropped = 0

    def add(self, change: dict[str, Any]) -> None:
        self._sequence += 1
        self._changes.append({**change, "sequence": self._sequence})
        while len(self._changes) > self._capacity:
            self._changes.popleft()
            self._dropped += 1

    def last(self) -> dict[str, Any] | None:
        return self._changes[-1] if self._changes else None

    def snapshot(self, title_truncated: bool) -> BrowserObservationV1:
        changes: list[BrowserStateChange] = [dict(change) for change in self._changes]  # type: ignore[misc]
        return {
            "version": 1,
            "sequence": self._sequence,
            "dropped_changes": self._dropped,
            "title_truncated": title_truncated,
            "changes": changes,
        }
