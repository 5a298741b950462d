"""What a driver factory and a check know about the world they run in: pages, origins, effects, hints.

An :class:`Environment` is made for each check. The driver factory receives it (``make_driver(env)``) and must
return a driver whose active tab shows ``env.start_url``; the check then reads the page's own record of effects
through it.
"""

from __future__ import annotations

import builtins
import threading
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit, urlunsplit

from conformance.harness.fixture_host import FixtureHost
from conformance.harness.fixture_server import Effect, EffectStore, EffectTimeout, FixtureServer, ServedRequest

T = TypeVar("T")
Origin = Literal["main", "other"]

# How long the page barrier may take before a quiet window decides instead. Generous: on a loaded two-core machine
# a page has been seen to answer a second late, and a barrier that holds returns as soon as it does.
BARRIER_LIMIT_SECONDS = 5.0
# The quiet window used only when the barrier did not hold: long enough for beacons in flight on a loaded machine.
FALLBACK_QUIET_SECONDS = 0.3
# How long an effect that a returned driver call must already have caused still gets once the barrier held without
# it (Environment.poll_effect_of_call). The barrier already covers a record still on its way to the server; this
# covers only a page that handles the input a task or two after acknowledging the barrier.
AFTER_BARRIER_SECONDS = 1.0


@dataclass(frozen=True)
class FileGrant:
    """A caller-issued file grant the check wants the driver to know about.

    ``kind`` says which member may use it. An upload grant names a file the driver may send (``content``); a
    download grant allows saving one download of at most ``max_bytes``. Grants are single use and expire
    ``expires_in_s`` seconds after the driver is created.
    """

    grant_id: str
    kind: Literal["upload", "download"]
    file_name: str
    content: bytes = b""
    max_bytes: int = 1_000_000
    expires_in_s: float = 300.0


@dataclass(frozen=True)
class DriverHints:
    """What the check would like from the driver. Drivers may ignore hints; dependent checks then report
    "not implemented" instead of failing."""

    viewport: tuple[int, int] = (1280, 720)
    observation: bool = True
    bind_targets: bool = False
    grants: tuple[FileGrant, ...] = ()
    members: tuple[str, ...] = ()
    limits: Mapping[str, int] = field(default_factory=dict)


class SharedResources:
    """Per-process resources shared by all checks (a browser, say), closed once at the end of the session.

    Each resource remembers the thread that made it. A resource made on a thread the harness abandoned (a
    driver call hung there) is never handed out or closed again: it is made afresh on first use.
    """

    def __init__(self, abandoned: Collection[int] = ()) -> None:
        self._abandoned = abandoned
        self._values: dict[str, tuple[Any, int]] = {}
        self._closers: list[tuple[Callable[[], object], int]] = []

    def _live(self, key: str) -> bool:
        return key in self._values and self._values[key][1] not in self._abandoned

    def _keep(self, key: str, value: Any, close: Callable[[Any], object] | None) -> None:
        maker = threading.get_ident()
        self._values[key] = (value, maker)
        if close is not None:
            self._closers.append((lambda: close(value), maker))

    def get(self, key: str, create: Callable[[], T], close: Callable[[T], object] | None) -> T:
        if not self._live(key):
            self._keep(key, create(), close)
        result: T = self._values[key][0]
        return result

    async def get_async(
        self, key: str, create: Callable[[], Awaitable[T]], close: Callable[[T], Awaitable[object]] | None
    ) -> T:
        if not self._live(key):
            self._keep(key, await create(), close)
        result: T = self._values[key][0]
        return result

    def close_all(self, run: Callable[[Callable[[], object]], object]) -> list[BaseException]:
        """Close everything in reverse order; ``run`` calls a closer where the harness runs driver code."""
        errors: list[BaseException] = []
        while self._closers:
            closer, maker = self._closers.pop()
            if maker in self._abandoned:
                continue
            try:
                run(closer)
            except BaseException as error:  # one failing cleanup must not stop the others
                errors.append(error)
        self._values.clear()
        return errors


class Environment:
    """One check's view of the fixture server, its session and its hints."""

    def __init__(
        self,
        server: FixtureServer,
        session: str,
        start_page: str = "blank.html",
        hints: DriverHints | None = None,
        shared: SharedResources | None = None,
        poll: Callable[[float], None] | None = None,
        note: Callable[[str], None] | None = None,
    ) -> None:
        self._server = server
        self._note = note
        self._noted: set[str] = set()
        self._session = session
        self.hints = hints or DriverHints()
        self._shared = shared or SharedResources()
        self._poll = poll
        self.main_origin = server.origin("main")
        self.other_origin = server.origin("other")
        self.allowed_origins: tuple[str, ...] = (self.main_origin,)
        self.start_url = self.url(start_page)
        # How the factory says it reached its browser (see report_browser_route); None until it does.
        self.browser_route: str | None = None

    @property
    def fixture_host(self) -> FixtureHost:
        """Where the fixture server listens and the host name its URLs carry (``--fixture-host``)."""
        return self._server.host

    def report_browser_route(self, route: str) -> None:
        """Tell the kit how the driver reached its browser, for the certificate: ``"launched"``, or the kind
        of endpoint it connected to (``"Playwright server at ws://..."``). Leave secrets (tokens in a query
        string, passwords) out: the text is printed as given, up to 300 characters."""
        if not isinstance(route, str) or not route.strip():
            raise TypeError(f"report_browser_route takes a non-empty string, not {route!r}")
        self.browser_route = " ".join(route.split())

    @property
    def store(self) -> EffectStore:
        return self._server.store

    @property
    def session(self) -> str:
        """This check's session token (the key of its records in :attr:`store`)."""
        return self._session

    def url(self, page: str, *, origin: Origin = "main", credentials: str | None = None) -> str:
        """Absolute URL of fixture ``page`` (a path under fixtures/pages, may carry ``?query``) in this session."""
        base = self.main_origin if origin == "main" else self.other_origin
        address = f"{base}/s/{self._session}/{page.lstrip('/')}"
        if credentials is None:
            return address
        parts = urlsplit(address)
        return urlunsplit(parts._replace(netloc=f"{credentials}@{parts.netloc}"))

    def effects(self, kind: str | None = None, page: str | None = None) -> builtins.list[Effect]:
        return [
            effect
            for effect in self.store.effects(self._session)
            if (kind is None or effect.get("kind") == kind) and (page is None or effect.get("page") == page)
        ]

    def poll_effect(
        self, kind: str, predicate: Callable[[Effect], bool] | None = None, timeout: float = 5.0
    ) -> Effect | None:
        """The first recorded ``kind`` effect matching ``predicate``, or None once ``timeout`` seconds pass."""

        def matches(effect: Effect) -> bool:
            return effect.get("kind") == kind and (predicate is None or predicate(effect))

        return self.store.wait(self._session, matches, timeout, self._poll)

    def poll_effect_of_call(
        self, kind: str, predicate: Callable[[Effect], bool] | None = None, timeout: float = 5.0
    ) -> Effect | None:
        """:meth:`poll_effect` for an effect a driver call that has returned must already have caused: a click's
        click, a key's keydown, typing's input.

        Once every page has acknowledged a barrier (all they recorded up to then has arrived) and the effect is
        not among their records, the call did not cause it: it gets ``AFTER_BARRIER_SECONDS`` more, not the rest
        of ``timeout``, so a check that fails says so at once. Where the barrier does not hold, the whole
        ``timeout``, as :meth:`poll_effect`. Not for effects a page makes later by itself (a load, a timer, a
        scroll event, which waits for the next frame).
        """
        deadline = time.monotonic() + timeout
        found = self.poll_effect(kind, predicate, 0.0)
        if found is not None:
            return found
        settled = self.store.barrier(self._session, min(timeout, BARRIER_LIMIT_SECONDS), self._poll)
        remaining = deadline - time.monotonic()
        if settled.held:
            remaining = min(remaining, AFTER_BARRIER_SECONDS)
        return self.poll_effect(kind, predicate, max(remaining, 0.0))

    def wait_for_effect(
        self, kind: str, predicate: Callable[[Effect], bool] | None = None, timeout: float = 5.0
    ) -> Effect:
        """The first recorded ``kind`` effect matching ``predicate``; raises :class:`EffectTimeout` if none comes."""
        found = self.poll_effect(kind, predicate, timeout)
        if found is None:
            seen = sorted({str(effect.get("kind")) for effect in self.effects()})
            silence = self.silence()
            raise EffectTimeout(
                f"no {kind!r} effect within {timeout:g} s (recorded kinds: {', '.join(seen) or 'none'})"
                + (f"; {silence}" if silence else "")
            )
        return found

    def was_served(self, page: str) -> bool:
        """Whether the fixture server answered a request for ``page`` (its path, without the query) in this check."""
        path = page.split("?", 1)[0]
        return any(request.path == path for request in self.requests() if request.method in ("GET", "HEAD"))

    def silence(self, page: str | None = None) -> str | None:
        """Why the fixture page's own recorder reported nothing, from the server's request log; None if it did.

        A page that was never requested was never loaded; a page whose recorder script or event posts never
        arrived was loaded by a browser that cannot reach the kit's fixture origin (a driver's network guard
        that blocks it, say). The second is a finding about the driver worth its own line, so it is also noted.
        """
        if self.effects():
            return None
        page = page or self.start_url.split(f"/s/{self._session}/", 1)[-1]
        requested = {request.path for request in self.requests() if request.method in ("GET", "HEAD")}
        if page.split("?", 1)[0] not in requested:
            return f"the fixture server never received a request for {page}: the driver did not load it"
        if "recorder.js" not in requested:
            finding = (
                f"{page} was served but its recorder.js never was: the browser could not fetch from the kit's "
                f"fixture origin {self.main_origin} (does the driver's network guard block it?)"
            )
        else:
            finding = (
                f"{page} and its recorder were served but no event came back: the page could not post to the "
                f"kit's fixture origin {self.main_origin} (does the driver's network guard block it?)"
            )
        self._note_once(finding)
        return finding

    def pause(self, seconds: float) -> None:
        """Let ``seconds`` pass while the driver's event loop (if it has one of ours) keeps running."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            (self._poll or time.sleep)(min(0.05, remaining))

    def settle(self, limit: float = BARRIER_LIMIT_SECONDS) -> int:
        """Wait until every fixture page has reported all it saw so far; return the effect position after it.

        The positive barrier (:mod:`conformance.harness.page_barrier`): each open page acknowledges a marker with
        its last effect number, and every effect up to it has arrived, so "nothing happened" is known as soon as
        the pages say so. A page that cannot take part (its barrier socket refused, a dialog blocking its script)
        holds the barrier for at most ``limit`` seconds; then a quiet window decides, and the run gets a note.
        """
        settled = self.store.barrier(self._session, limit, self._poll)
        if settled.held:
            return settled.position
        self._note_once(
            f"the page barrier did not hold within {limit:g} s ({'; '.join(settled.waiting)[:300]}): "
            f"a quiet window of {FALLBACK_QUIET_SECONDS:g} s decided instead"
        )
        self.store.settle(self._session, FALLBACK_QUIET_SECONDS, limit, self._poll)
        return len(self.effects())

    def _note_once(self, finding: str) -> None:
        if self._note is not None and finding not in self._noted:
            self._noted.add(finding)
            self._note(finding)

    def requests(self, origin: Origin | None = None) -> builtins.list[ServedRequest]:
        return [request for request in self.store.requests(self._session) if origin is None or request.origin == origin]

    def marker_raised_at(self, marker: int) -> float | None:
        """When :meth:`settle` raised barrier ``marker`` (wall clock, as request times), or None if it never did.

        A page that acts on a marker (fixture pages get it as a ``kit-barrier`` event) cannot act before this.
        """
        return self.store.marker_raised_at(self._session, marker)

    def shared(self, key: str, create: Callable[[], T], close: Callable[[T], object] | None = None) -> T:
        """A resource shared by every check in this process, created on first use and closed at session end."""
        return self._shared.get(key, create, close)

    async def shared_async(
        self,
        key: str,
        create: Callable[[], Awaitable[T]],
        close: Callable[[T], Awaitable[object]] | None = None,
    ) -> T:
        """The async twin of :meth:`shared`, for drivers that live on the harness event loop."""
        return await self._shared.get_async(key, create, close)


__all__ = [
    "DriverHints",
    "Effect",
    "EffectTimeout",
    "Environment",
    "FileGrant",
    "ServedRequest",
    "SharedResources",
]
