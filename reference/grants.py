"""Caller-issued file grants for ``upload_file`` and ``download_file``.

spec/000 "Opt in to diagnostics, scripts, and file transfers": a file method receives only an opaque grant ID
that names one approved, task-scoped file. The owner of the file approves it separately from browser consent,
and must recheck expiry and ownership, enforce size limits and allow each grant once. :class:`GrantStore` is that
owner for the reference driver: the application issues grants, the driver redeems them, and the store reports
the documented status/effect pairs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, cast

from openai.lib.browser import BrowserFileOutcome

GrantKind = Literal["upload", "download"]
Cleanup = Literal["not_started", "pending", "completed"]


class GrantError(ValueError):
    """The application tried to issue an invalid grant."""


@dataclass
class _Grant:
    grant_id: str
    kind: GrantKind
    owner: str
    file_name: str
    content: bytes
    max_bytes: int
    expires_at: float
    used: bool = False
    received: bytes | None = None


@dataclass(frozen=True)
class Redemption:
    """A grant the store handed out for exactly one transfer."""

    grant_id: str
    kind: GrantKind
    file_name: str
    content: bytes
    max_bytes: int


def outcome(
    status: Literal["completed", "refused", "unknown", "interrupted"],
    effect: Literal["completed", "none", "unknown"],
    cleanup: Cleanup,
) -> BrowserFileOutcome:
    """A file outcome limited to the documented status/effect pairs."""
    pairs = {("completed", "completed"), ("refused", "none"), ("unknown", "unknown")}
    pairs |= {("interrupted", "none"), ("interrupted", "unknown")}
    if (status, effect) not in pairs:
        raise ValueError(f"Undocumented file outcome pair: {status}/{effect}")
    return cast(BrowserFileOutcome, {"version": 1, "status": status, "effect": effect, "cleanup": cleanup})


def refused() -> BrowserFileOutcome:
    return outcome("refused", "none", "not_started")


@dataclass
class GrantStore:
    """Single-use, expiring, size-limited file grants bound to an owner.

    ``clock`` is injectable so expiry can be tested without sleeping.
    """

    clock: Callable[[], float] = time.monotonic
    _grants: dict[str, _Grant] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def issue(
        self,
        grant_id: str,
        *,
        kind: GrantKind,
        owner: str,
        file_name: str,
        content: bytes = b"",
        max_bytes: int,
        expires_in_s: float,
    ) -> None:
        """Record an approved file. Upload grants carry the bytes; download grants name the file to receive."""
        if not grant_id or len(grant_id.encode("utf-8", "surrogatepass")) > 256:
            raise GrantError("A grant ID is nonempty and at most 256 UTF-8 bytes.")
        if kind not in ("upload", "download"):
            raise GrantError(f"Unknown grant kind: {kind!r}")
        if not file_name or "/" in file_name or "\\" in file_name or file_name in (".", ".."):
            raise GrantError(f"A grant names a plain file name, not a path: {file_name!r}")
        if max_bytes < 0 or expires_in_s <= 0:
            raise GrantError("A grant needs a nonnegative size limit and a positive lifetime.")
        with self._lock:
            if grant_id in self._grants:
                raise GrantError(f"Grant {grant_id!r} was already issued.")
            self._grants[grant_id] = _Grant(
                grant_id, kind, owner, file_name, bytes(content), max_bytes, self.clock() + expires_in_s
            )

    def redeem(self, grant_id: str, *, kind: GrantKind, owner: str) -> Redemption | None:
        """Consume a grant for one transfer, or None when it is unknown, expired, foreign, used or oversized.

        The grant is marked used before the transfer starts, so a failed or interrupted transfer cannot be
        retried under the same grant: the application must issue a new one after checking what happened.
        """
        with self._lock:
            grant = self._grants.get(grant_id)
            if (
                grant is None
                or grant.kind != kind
                or grant.owner != owner
                or grant.used
                or self.clock() >= grant.expires_at
                or len(grant.content) > grant.max_bytes
            ):
                return None
            grant.used = True
            return Redemption(grant.grant_id, grant.kind, grant.file_name, grant.content, grant.max_bytes)

    def deliver(self, grant_id: str, data: bytes) -> bool:
        """Store the bytes a download grant received; False if they exceed the grant's limit."""
        with self._lock:
            grant = self._grants.get(grant_id)
            if grant is None or grant.kind != "download" or len(data) > grant.max_bytes:
                return False
            grant.received = bytes(data)
            return True

    def received(self, grant_id: str) -> bytes | None:
        """The bytes a completed download delivered to the application, if any."""
        with self._lock:
            grant = self._grants.get(grant_id)
            return None if grant is None else grant.received

    def is_used(self, grant_id: str) -> bool:
        with self._lock:
            grant = self._grants.get(grant_id)
            return grant is not None and grant.used
