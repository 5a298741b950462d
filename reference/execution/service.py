"""The code-execution HTTP service: ``POST /execute`` with ``{session_id, language, code}``, bearer token required.

``DELETE /sessions/<session_id>`` (same token) ends a session: its runtime and everything it started are killed
and its scratch folder freed; the reply is ``{"ended": true}``, or 404 when there was no live session.

Binds to loopback unless told otherwise. A request must arrive whole within ``request_timeout_s`` and at most
``max_connections`` connections are served at once (see :class:`~reference.execution.limits.ExecutionLimits`).
Replies are JSON: ``{"output": [...]}`` on success, or
``{"error": "<message>"}`` with 400 (malformed request, unsupported language), 401 (missing or wrong token),
404/405 (wrong path or method), 409 (session busy), 413 (body too large) or 503 (no capacity / shutting down).
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import socket
import socketserver
import threading
from collections.abc import Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, Final
from urllib.parse import quote

from .limits import ExecutionLimits
from .protocol import SESSION_ID, RequestError, parse_request
from .sandbox import BubblewrapSandbox, Launcher, SandboxUnavailable
from .sessions import RuntimeSettings, SessionPool

EXECUTE_PATH: Final = "/execute"
SESSIONS_PATH: Final = "/sessions/"
LOOPBACK: Final = "127.0.0.1"

# The old name: raised when the sandbox (network isolation included) cannot be built on this host.
IsolationUnavailable = SandboxUnavailable


class _Handler(BaseHTTPRequestHandler):
    server: _Server | _UnixServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        # Request lines may carry session IDs; the service keeps its own counters instead of a stderr log.
        return

    def handle_one_request(self) -> None:
        # A per-read socket timeout alone would let a client trickle a byte at a time and hold this thread for
        # ever: the whole request (line, headers, body) gets one deadline, and a connection still reading at it is
        # cut. Running the code afterwards is bounded by the runtime's own deadline instead.
        self._receiving = True
        timer = threading.Timer(self.server.service.limits.request_timeout_s, self._cut_if_receiving)
        timer.daemon = True
        timer.start()
        try:
            super().handle_one_request()
        except OSError:
            # The client went away, or was cut above: there is no one left to answer, and nothing to report.
            self.close_connection = True
        finally:
            timer.cancel()

    def _received(self) -> None:
        self._receiving = False

    def _cut_if_receiving(self) -> None:
        if self._receiving:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)

    def do_POST(self) -> None:
        try:
            self._execute()
        except RequestError as error:
            self._reply(error.status, {"error": error.message})

    def do_GET(self) -> None:
        self._reject_method()

    def do_PUT(self) -> None:
        self._reject_method()

    def do_DELETE(self) -> None:
        path = self.path.split("?", 1)[0]
        if not path.startswith(SESSIONS_PATH):
            self._reject_method()
            return
        self._drain()
        if not self.server.service.authorized(self.headers.get("Authorization")):
            self._unauthorized()
            return
        session_id = path[len(SESSIONS_PATH) :]
        if not SESSION_ID.fullmatch(session_id):
            self._reply(HTTPStatus.BAD_REQUEST, {"error": "The session ID in the path is not a valid session_id."})
        elif self.server.service.pool.end(session_id):
            self._reply(HTTPStatus.OK, {"ended": True})
        else:
            self._reply(HTTPStatus.NOT_FOUND, {"error": "No live session has this ID."})

    def _reject_method(self) -> None:
        self._drain()
        if self.path.startswith(SESSIONS_PATH):
            message, allow = f"Use DELETE {SESSIONS_PATH}<session_id> to end a session.", "DELETE"
        else:
            message, allow = f"Use POST {EXECUTE_PATH}.", "POST"
        self._reply(HTTPStatus.METHOD_NOT_ALLOWED, {"error": message}, extra={"Allow": allow})

    def _unauthorized(self) -> None:
        self._reply(
            HTTPStatus.UNAUTHORIZED,
            {"error": "A valid bearer token is required."},
            extra={"WWW-Authenticate": 'Bearer realm="execution"'},
        )

    def _execute(self) -> None:
        service = self.server.service
        if self.path.startswith(SESSIONS_PATH):
            self._reject_method()
            return
        if self.path.split("?", 1)[0] != EXECUTE_PATH:
            self._drain()
            raise RequestError(404, f"Unknown path; POST requests go to {EXECUTE_PATH}.")
        # Authentication comes first, so an unauthenticated caller learns nothing about request validation.
        if not service.authorized(self.headers.get("Authorization")):
            self._drain()
            self._unauthorized()
            return
        body = self._body(service.limits.max_request_bytes)
        self._received()
        request = parse_request(body, max_code_bytes=service.limits.max_code_bytes)
        output = service.pool.execute(request.session_id, request.code, request.language)
        self._reply(HTTPStatus.OK, {"output": output})

    def _length(self) -> int:
        raw = self.headers.get("Content-Length")
        if raw is None:
            raise RequestError(411, "Content-Length is required.")
        try:
            length = int(raw)
        except ValueError:
            raise RequestError(400, "Content-Length must be an integer.") from None
        if length < 0:
            raise RequestError(400, "Content-Length must not be negative.")
        return length

    def _body(self, limit: int) -> bytes:
        length = self._length()
        if length > limit:
            self.close_connection = True  # the unread body would otherwise be parsed as the next request
            raise RequestError(413, f"The request body is larger than {limit} bytes.")
        body = self.rfile.read(length)
        if len(body) < length:
            self.close_connection = True
            raise RequestError(400, "The request body ended before Content-Length bytes.")
        return body

    def _drain(self) -> None:
        try:
            length = self._length()
        except RequestError:
            self.close_connection = True
            return
        if length > self.server.service.limits.max_request_bytes:
            self.close_connection = True
        else:
            self.rfile.read(length)
        self._received()

    def _reply(self, status: int, payload: Mapping[str, object], extra: Mapping[str, str] | None = None) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


_BUSY_BODY: Final = b'{"error": "Too many connections; retry in a moment."}'
_BUSY_REPLY: Final = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
    + f"Content-Length: {len(_BUSY_BODY)}\r\n\r\n".encode()
    + _BUSY_BODY
)


class _Bounded(socketserver.ThreadingMixIn):
    """At most ``max_connections`` handler threads: one more connection is answered 503 and closed at once."""

    daemon_threads = True
    service: ExecutionService
    _slots: threading.BoundedSemaphore

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.settimeout(1.0)
                request.sendall(_BUSY_REPLY)
            self.shutdown_request(request)  # type: ignore[attr-defined]
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class _Server(_Bounded, HTTPServer):
    def __init__(self, address: tuple[str, int], service: ExecutionService) -> None:
        super().__init__(address, _Handler)
        self.service = service
        self._slots = threading.BoundedSemaphore(service.limits.max_connections)


class _UnixServer(_Bounded, socketserver.UnixStreamServer):
    """The same handler on a unix socket: for a service inside a container started with ``--network none``."""

    def __init__(self, path: str, service: ExecutionService) -> None:
        if os.path.exists(path):
            # Only a stale socket may be replaced, never an arbitrary file at that path.
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                try:
                    probe.connect(path)
                except OSError:
                    os.unlink(path)
                else:
                    raise OSError(f"another service is already listening on {path}")
        super().__init__(path, _Handler)
        os.chmod(path, 0o600)
        self.service = service
        self._slots = threading.BoundedSemaphore(service.limits.max_connections)


class ExecutionService:
    """Serve code execution until :meth:`stop` (or the end of a ``with`` block).

    ``display="per-session"`` gives every Python session an X server of its own inside its sandbox (1440x900, no
    TCP, no abstract socket), so sessions cannot see or drive each other's windows. Otherwise
    ``display`` is the X display the runtimes drive (the desktop's ``DISPLAY``; its X11 socket is the one host
    socket a sandbox sees). Every runtime runs in a :class:`~reference.execution.sandbox.BubblewrapSandbox`;
    when the host cannot build it the service refuses to start (:class:`SandboxUnavailable`) rather than run code
    unconfined. ``isolate_network=False`` keeps the sandbox but shares the host's network with the runtimes.
    ``launcher`` replaces the sandbox altogether: for measurements only, never for untrusted code.
    """

    def __init__(
        self,
        token: str,
        *,
        display: str | None,
        limits: ExecutionLimits | None = None,
        host: str = LOOPBACK,
        port: int = 0,
        isolate_network: bool = True,
        unix_socket: str | None = None,
        launcher: Launcher | None = None,
    ) -> None:
        if len(token) < 16:
            raise ValueError("the bearer token must be at least 16 characters")
        self.limits = limits or ExecutionLimits()
        self._token = token.encode()
        self._sandbox: BubblewrapSandbox | None = None
        if launcher is None:
            self._sandbox = launcher = BubblewrapSandbox(self.limits, isolate_network=isolate_network)
        self.launcher = launcher
        self.network_isolated = launcher.network_isolated
        try:
            self._server: _Server | _UnixServer = (
                _UnixServer(unix_socket, self) if unix_socket is not None else _Server((host, port), self)
            )
        except OSError:
            if self._sandbox is not None:
                self._sandbox.close()
            raise
        self.pool = SessionPool(RuntimeSettings(self.limits, display, launcher))
        self._unix_socket = unix_socket
        self._thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        """``http://host:port/execute``, or ``http+unix://<socket path, percent-encoded>/execute``."""
        if self._unix_socket is not None:
            return f"http+unix://{quote(self._unix_socket, safe='')}{EXECUTE_PATH}"
        address = self._server.server_address
        assert isinstance(address, tuple)
        return f"http://{address[0]!s}:{address[1]}{EXECUTE_PATH}"

    def authorized(self, header: str | None) -> bool:
        if header is None or not header.startswith("Bearer "):
            return False
        return hmac.compare_digest(header[len("Bearer ") :].strip().encode(), self._token)

    def start(self) -> ExecutionService:
        # A short poll: serve_forever sees shutdown() only at its next one (the default half second made every
        # stop wait for it).
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="execution-service", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self.pool.close()
        if self._sandbox is not None:
            self._sandbox.close()
        if self._unix_socket is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._unix_socket)

    def __enter__(self) -> ExecutionService:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
