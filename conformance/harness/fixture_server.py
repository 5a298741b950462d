"""The fixture server: fixture pages on two origins, and the record of what those pages observed.

Checks verify a driver's effects from the page's side, never from the driver's word: every fixture page posts
the events it sees (``fixtures/pages/recorder.js``) to this server, and the server logs every request it
receives. Page files hold only their own title, head extras and body; the server serves them in the one layout
of :mod:`conformance.harness.page_layout`, which adds the doctype, charset and the recorder's script tag.
Each check gets its own session token, which prefixes every path (``/s/<token>/forms.html``), so checks never
see each other's effects even when they share a server.

Two origins are served: "main" (the allowed origin) and "other" (a second port on the same host, which checks
treat as a disallowed origin for redirects, popups and subresources). Both listen on loopback unless a
:class:`FixtureHost` says where the browser under test reaches this machine (``--fixture-host``). Besides
pages, a session serves ``__name`` endpoints: the server owns ``__effect`` (the recorder) and ``__barrier`` (the
page barrier, :mod:`conformance.harness.page_barrier`); the others (a redirect, a download, a slow page...) are a
table of :data:`Endpoint` functions that the checks needing them declare and add (:meth:`add_endpoints`).
"""

from __future__ import annotations

import json
import mimetypes
import secrets
import socket
import threading
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal
from urllib.parse import parse_qs, unquote, urlsplit

from conformance import resources
from conformance.harness import generated_pages, page_barrier, page_layout
from conformance.harness.fixture_host import FixtureHost

Origin = Literal["main", "other"]
Effect = Mapping[str, Any]
_ORIGINS: tuple[Origin, ...] = ("main", "other")

_MAX_EFFECT_BYTES = 64 * 1024
_SESSION_PREFIX = "/s/"
# The recorder's own traffic: its effect posts and its barrier socket are bookkeeping, not requests a driver made
# the page send, so they stay out of the request log checks read.
_RECORDER_ENDPOINTS = ("__effect", "__barrier")


@dataclass(frozen=True)
class EndpointCall:
    """One request to a ``__name`` endpoint of a session, as the endpoint sees it."""

    method: str
    tail: list[str]  # the path segments after the endpoint's name
    query: Mapping[str, list[str]]
    # Whether the browser sent an Authorization header (never the credentials themselves).
    authorization: bool
    body: bytes  # a POST's body (bounded), else empty
    record: Callable[[dict[str, Any]], None]  # adds an effect to the session's record, stamped with the origin


@dataclass(frozen=True)
class Reply:
    status: HTTPStatus
    body: bytes = b""
    content_type: str = "text/plain"
    headers: Mapping[str, str] = field(default_factory=dict)


# An endpoint answers one request; the table of them (name -> endpoint) is declared by the checks that need them.
Endpoint = Callable[[EndpointCall], Reply]


class EffectTimeout(AssertionError):
    """An expected page effect did not arrive in time."""


@dataclass(frozen=True)
class ServedRequest:
    """A request the fixture server answered for a session (the log checks read to prove a fetch happened or not)."""

    method: str
    path: str  # relative to the session: "forms.html", "__auth"
    query: str
    origin: Origin
    at: float
    # Whether the browser sent an Authorization header. Only the fact is kept, never the credentials, so checks
    # can prove a browser never answered the ``__auth`` challenge without the kit holding anyone's secret.
    authorization: bool = False


@dataclass
class _Session:
    effects: list[Effect] = field(default_factory=list)
    requests: list[ServedRequest] = field(default_factory=list)
    barrier: page_barrier.BarrierState = field(default_factory=page_barrier.BarrierState)


@dataclass(frozen=True)
class Settled:
    """The outcome of a barrier: where the record stood once it held, or what it was still waiting for."""

    position: int  # how many effects the session had recorded when the barrier held (or gave up)
    waiting: tuple[str, ...] = ()  # empty when every page acknowledged; else one phrase per page still missing

    @property
    def held(self) -> bool:
        return not self.waiting


class EffectStore:
    """Thread-safe effects and request logs per session, with waits that can keep a caller's loop turning."""

    def __init__(self) -> None:
        self._sessions: dict[str, _Session] = {}
        self._changed = threading.Condition()

    def open(self) -> str:
        token = secrets.token_hex(6)
        with self._changed:
            self._sessions[token] = _Session()
        return token

    def close(self, token: str) -> None:
        with self._changed:
            self._sessions.pop(token, None)

    def known(self, token: str) -> bool:
        with self._changed:
            return token in self._sessions

    def _change(self, token: str, change: Callable[[_Session], object]) -> None:
        """Apply ``change`` to a live session under the lock and wake every waiter; a closed session is ignored
        (a late beacon or socket message from a check that has ended)."""
        with self._changed:
            session = self._sessions.get(token)
            if session is not None:
                change(session)
                self._changed.notify_all()

    def add_effect(self, token: str, effect: Effect) -> None:
        self._change(token, lambda session: session.effects.append(dict(effect, received=time.monotonic())))

    def add_request(self, token: str, request: ServedRequest) -> None:
        self._change(token, lambda session: session.requests.append(request))

    def effects(self, token: str) -> list[Effect]:
        with self._changed:
            session = self._sessions.get(token)
            return list(session.effects) if session else []

    def requests(self, token: str) -> list[ServedRequest]:
        with self._changed:
            session = self._sessions.get(token)
            return list(session.requests) if session else []

    def marker_raised_at(self, token: str, marker: int) -> float | None:
        with self._changed:
            session = self._sessions.get(token)
            return session.barrier.raised_at.get(marker) if session else None

    def wait(
        self,
        token: str,
        matches: Callable[[Effect], bool],
        timeout: float,
        poll: Callable[[float], None] | None = None,
    ) -> Effect | None:
        """The first effect (old or new) that ``matches``, or None after ``timeout`` seconds.

        ``poll(seconds)`` replaces the plain sleep between looks, so a caller whose driver needs its event loop
        turning (an async driver) can keep it turning while it waits.
        """
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            effects = self.effects(token)
            for effect in effects[seen:]:
                if matches(effect):
                    return effect
            seen = len(effects)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self._pause(min(0.02, remaining), poll)

    def document_served(self, token: str, page: str, origin: str) -> None:
        """A page document carrying the recorder was served: the barrier waits (boundedly) for it to connect."""
        with self._changed:
            session = self._sessions.get(token)
            if session is not None:
                session.barrier.document_served(page, origin)

    def page_connected(self, token: str, instance: str, page: str, origin: str) -> None:
        self._change(token, lambda session: session.barrier.connected(instance, page, origin))

    def page_disconnected(self, token: str, instance: str) -> None:
        self._change(token, lambda session: session.barrier.disconnected(instance))

    def page_reported(self, token: str, instance: str, page: str, origin: str, message: Mapping[str, Any]) -> None:
        self._change(token, lambda session: session.barrier.reported(instance, page, origin, message))

    def next_marker(self, token: str, sent: int, wait: float) -> int | None:
        """The session's marker once it passes ``sent`` or ``wait`` seconds pass; None once the session closed."""
        with self._changed:
            session = self._sessions.get(token)
            if session is not None and session.barrier.marker <= sent:
                self._changed.wait(wait)
                session = self._sessions.get(token)
            return None if session is None else session.barrier.marker

    def barrier(self, token: str, limit: float, poll: Callable[[float], None] | None = None) -> Settled:
        """Raise the session's marker and wait until every page acknowledged it and its effects up to then arrived.

        Gives up after ``limit`` seconds, returning what it still waited for (the caller decides what that means).
        """
        with self._changed:
            session = self._sessions.get(token)
            if session is None:
                return Settled(0)
            session.barrier.marker += 1
            marker = session.barrier.marker
            session.barrier.raised_at[marker] = time.time()
            self._changed.notify_all()
        deadline = time.monotonic() + limit
        while True:
            with self._changed:
                session = self._sessions.get(token)
                if session is None:
                    return Settled(0)
                waiting = session.barrier.waiting_for(marker, session.effects, time.monotonic())
                position = len(session.effects)
                # A page without a socket never acknowledges: waiting out the limit would only cost time.
                hopeless = bool(session.barrier.unreachable())
            if not waiting or hopeless or time.monotonic() >= deadline:
                return Settled(position, tuple(waiting))
            self._pause(0.005, poll)

    def settle(self, token: str, quiet: float, limit: float = 5.0, poll: Callable[[float], None] | None = None) -> None:
        """Return once no effect has arrived for ``quiet`` seconds (or after ``limit`` seconds).

        The fallback for pages that cannot take part in :meth:`barrier`: silence proves nothing by itself.
        """
        deadline = time.monotonic() + limit
        count = len(self.effects(token))
        last_change = time.monotonic()
        while time.monotonic() < deadline:
            self._pause(0.02, poll)
            now_count = len(self.effects(token))
            if now_count != count:
                count, last_change = now_count, time.monotonic()
            elif time.monotonic() - last_change >= quiet:
                return

    def _pause(self, seconds: float, poll: Callable[[float], None] | None) -> None:
        if poll is not None:
            poll(seconds)
        else:
            with self._changed:
                self._changed.wait(seconds)


class _Handler(BaseHTTPRequestHandler):
    server: _OriginServer
    protocol_version = "HTTP/1.1"
    _token = ""  # the session of the request being handled

    def log_message(self, format: str, *args: Any) -> None:
        # Request logging goes to the effect store, not to stderr.
        return

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_HEAD(self) -> None:
        self._dispatch("HEAD")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        if not path.startswith(_SESSION_PREFIX):
            self._reply(HTTPStatus.NOT_FOUND, b"no session in path\n", "text/plain")
            return
        token, _, rest = path[len(_SESSION_PREFIX) :].partition("/")
        store = self.server.fixture.store
        if not store.known(token):
            self._reply(HTTPStatus.NOT_FOUND, b"unknown session\n", "text/plain")
            return
        self._token = token
        if rest.rsplit("/", 1)[-1] not in _RECORDER_ENDPOINTS:
            request = ServedRequest(
                method, rest, parts.query, self.server.origin_name, time.time(), "Authorization" in self.headers
            )
            store.add_request(token, request)
        segments = rest.split("/")
        special = next((i for i, segment in enumerate(segments) if segment.startswith("__")), None)
        if special is not None:
            self._special(method, token, segments[special], segments[special + 1 :], parse_qs(parts.query))
        elif method == "POST":
            self._reply(HTTPStatus.METHOD_NOT_ALLOWED, b"pages are read-only\n", "text/plain")
        else:
            self._page(rest, parse_qs(parts.query), head=method == "HEAD")

    def _page(self, relative: str, query: Mapping[str, list[str]], head: bool) -> None:
        relative = relative or "blank.html"
        if relative.startswith(generated_pages.FOLDER):
            built = generated_pages.build(relative[len(generated_pages.FOLDER) :], query)
            if built is None:
                self._reply(HTTPStatus.NOT_FOUND, b"no such generated page\n", "text/plain")
            else:
                if not head:
                    self._served_document(relative, built.encode())
                self._reply(HTTPStatus.OK, built.encode(), "text/html; charset=utf-8", head=head)
            return
        pages = self.server.fixture.pages
        target = (pages / relative).resolve()
        if not target.is_relative_to(pages) or not target.is_file():
            self._reply(HTTPStatus.NOT_FOUND, b"no such fixture page\n", "text/plain")
            return
        content_type = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if content_type.startswith("text/") or content_type.endswith("javascript"):
            content_type += "; charset=utf-8"
        body = target.read_bytes()
        if content_type.startswith("text/html"):
            try:
                served = page_layout.serve(body.decode("utf-8"), target.relative_to(pages).as_posix())
                body = served.encode("utf-8")
            except (UnicodeDecodeError, page_layout.PageFormatError) as problem:
                # A broken page file is the kit's bug: say which and why instead of serving half a page.
                self._reply(HTTPStatus.INTERNAL_SERVER_ERROR, f"{problem}\n".encode(), "text/plain; charset=utf-8")
                return
            if not head:
                self._served_document(relative, body)
        self._reply(HTTPStatus.OK, body, content_type, head=head)

    def _served_document(self, relative: str, body: bytes) -> None:
        if b"recorder.js" in body:
            page = relative.rsplit("/", 1)[-1]
            self.server.fixture.store.document_served(self._token, page, self.server.origin_name)

    def _special(self, method: str, token: str, name: str, tail: list[str], query: Mapping[str, list[str]]) -> None:
        store = self.server.fixture.store
        if name == "__effect" and method == "POST":
            # The recorder every fixture page posts its events to: the one endpoint the server itself owns.
            try:
                effect = json.loads(self._body())
            except ValueError:
                self._reply(HTTPStatus.BAD_REQUEST, b"effect must be JSON\n", "text/plain")
                return
            if isinstance(effect, dict):
                effect["origin"] = self.server.origin_name
                store.add_effect(token, effect)
            self._reply(HTTPStatus.NO_CONTENT, b"", "text/plain")
            return
        if name == "__barrier":
            self._barrier(method, token, query)
            return
        endpoint = self.server.fixture.endpoints.get(name)
        if endpoint is None:
            self._reply(HTTPStatus.NOT_FOUND, b"unknown endpoint\n", "text/plain")
            return
        origin = self.server.origin_name

        def record(effect: dict[str, Any]) -> None:
            store.add_effect(token, {**effect, "origin": origin})

        call = EndpointCall(
            method, tail, query, "Authorization" in self.headers, self._body() if method == "POST" else b"", record
        )
        reply = endpoint(call)
        self._reply(reply.status, reply.body, reply.content_type, extra=reply.headers)

    def _barrier(self, method: str, token: str, query: Mapping[str, list[str]]) -> None:
        """A page's barrier socket (GET with a WebSocket upgrade), or its beacon when it has none (POST)."""
        store = self.server.fixture.store
        instance, page = (query.get(name, [""])[0][:64] for name in ("instance", "page"))
        origin = self.server.origin_name
        if not instance:
            self._reply(HTTPStatus.BAD_REQUEST, b"barrier needs ?instance=\n", "text/plain")
            return
        if method == "POST":
            try:
                message = json.loads(self._body())
            except ValueError:
                message = None
            if isinstance(message, dict):
                store.page_reported(token, instance, page, origin, message)
            self._reply(HTTPStatus.NO_CONTENT, b"", "text/plain")
            return
        key = self.headers.get("Sec-WebSocket-Key")
        if self.headers.get("Upgrade", "").lower() != "websocket" or not key:
            self._reply(HTTPStatus.BAD_REQUEST, b"barrier is a WebSocket\n", "text/plain")
            return
        self.send_response(HTTPStatus.SWITCHING_PROTOCOLS)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", page_barrier.accept_key(key))
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        store.page_connected(token, instance, page, origin)
        try:
            page_barrier.serve_page(
                self.connection,
                lambda sent: None if self.server.fixture.stopping else store.next_marker(token, sent, 0.01),
                lambda message: store.page_reported(token, instance, page, origin, message),
            )
        finally:
            store.page_disconnected(token, instance)

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(min(length, _MAX_EFFECT_BYTES * 16))

    def _reply(
        self,
        status: HTTPStatus,
        body: bytes,
        content_type: str,
        *,
        head: bool = False,
        extra: Mapping[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        # Fixture pages change between kit versions; a cached copy would make a check test an old page.
        self.send_header("Cache-Control", "no-store")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if not head and body:
            self.wfile.write(body)


class FixtureHostUnusable(OSError):
    """The fixture server cannot listen on the address ``--fixture-host`` names."""


class _OriginServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fixture: FixtureServer, origin_name: Origin, host: FixtureHost) -> None:
        self.address_family = socket.AF_INET6 if host.ipv6 else socket.AF_INET
        try:
            super().__init__((host.bind, 0), _Handler)
        except OSError as error:
            raise FixtureHostUnusable(
                f"the fixture server cannot listen on {host.bind} ({error.strerror or error}): "
                "give an address of this machine (ip -brief address lists them), or 0.0.0.0 with the name"
            ) from None
        self.fixture = fixture
        self.origin_name: Origin = origin_name


class FixtureServer:
    """Serves the fixture pages on two origins of ``host`` (loopback by default) until :meth:`stop` (or the
    ``with`` block ends)."""

    def __init__(
        self,
        pages: Path | None = None,
        endpoints: Mapping[str, Endpoint] | None = None,
        host: FixtureHost | None = None,
    ) -> None:
        self.pages = (pages or resources.pages()).resolve()
        self.host = host or FixtureHost()
        self.store = EffectStore()
        self.endpoints: dict[str, Endpoint] = {}
        self.add_endpoints(endpoints or {})
        self._servers: dict[Origin, _OriginServer] = {}
        try:
            for name in _ORIGINS:
                self._servers[name] = _OriginServer(self, name, self.host)
        except OSError:
            for server in self._servers.values():
                server.server_close()
            raise
        self._threads: list[threading.Thread] = []
        self.stopping = False  # tells the pages' barrier sockets to close

    def add_endpoints(self, endpoints: Mapping[str, Endpoint]) -> None:
        """Serve ``endpoints`` (``{"__name": endpoint}``) in every session; a name already served is an error."""
        for name, endpoint in endpoints.items():
            if not name.startswith("__") or name == "__effect":
                raise ValueError(f"endpoint {name!r}: names start with '__' and '__effect' is the recorder's")
            if self.endpoints.get(name, endpoint) is not endpoint:
                raise ValueError(f"endpoint {name!r} is already served by another table")
            self.endpoints[name] = endpoint

    def origin(self, name: Origin = "main") -> str:
        """The origin the browser loads ``name``'s pages from: the advertised host name and that server's port."""
        port = self._servers[name].server_address[1]
        return f"http://{self.host.url_host}:{port}"

    def ports(self) -> tuple[int, int]:
        """The ports of the main and the other origin."""
        return self._servers["main"].server_address[1], self._servers["other"].server_address[1]

    def start(self) -> FixtureServer:
        for name, server in self._servers.items():
            # serve_forever notices shutdown() only at its next poll: at the default half second, stopping the two
            # origins cost about 0.4 s at the end of every run.
            thread = threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"driverkit-fixtures-{name}",
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self.stopping = True
        for server in self._servers.values():
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)

    def __enter__(self) -> FixtureServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def session(self) -> Generator[str, None, None]:
        """Open a session token for one check; closing the generator forgets its record."""
        token = self.store.open()
        try:
            yield token
        finally:
            self.store.close(token)
