"""The driver's network guard: a loopback forward proxy that enforces the origin policy for its context.

spec/000 "Confirmation, navigation, and recovery" and spec/002 "Restrict URLs": the URL callback only sees
requested navigations; the driver must also handle redirects, popups, subresources and downloads. Every
request of the context goes through this proxy (Playwright's per-context ``proxy`` with loopback included), so
each redirect hop is a new request the guard checks before it contacts anything. It runs on its own threads,
so the policy holds even while a synchronous driver is idle (Playwright's sync ``route`` handlers only run while
the caller is inside a Playwright call, which would stall the page between tool calls).

A refused request is answered with ``204 No Content`` and an ``x-rdk-refused`` header: for a top-level
navigation Chromium then stays on the current page, and the driver learns of the refusal from the response
event. Attachments are refused the same way unless a file grant armed that exact URL.
"""

from __future__ import annotations

import http.client
import os
import select
import selectors
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from reference.policy import OriginSet, parse_origin

REFUSED_HEADER: Final = "x-rdk-refused"
_HOP_BY_HOP: Final = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)
_UPSTREAM_TIMEOUT_S: Final = 60.0


class NetworkGuard:
    """A forward proxy permitting exactly the origins of an :class:`OriginSet`.

    It listens on ``host``: loopback by default, or the address of this machine that a browser elsewhere (in a
    container on a host-only network, say) reaches it by.
    """

    def __init__(self, origins: OriginSet, host: str = "127.0.0.1") -> None:
        self.origins = origins
        self._lock = threading.Lock()
        self._download_permits: set[str] = set()
        self.blocked_downloads: dict[str, str] = {}  # url -> file name, for download_file
        self._server = ThreadingHTTPServer((host, 0), _handler_for(self))
        self._server.daemon_threads = True
        self._server.timeout = 0  # handle_request() below is called only once a connection is waiting
        # close() writes to this pipe to end the accept loop at once: serve_forever() would notice its shutdown
        # only at its next poll, and a driver's close (in an async driver, on the event loop) would wait for it.
        self._wake_read, self._wake_write = os.pipe()
        self._closed = False
        self._thread = threading.Thread(target=self._accept_until_closed, name="rdk-network-guard", daemon=True)
        self._thread.start()

    def _accept_until_closed(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self._server, selectors.EVENT_READ)
            selector.register(self._wake_read, selectors.EVENT_READ)
            while True:
                ready = {key.fileobj for key, _events in selector.select()}
                if self._wake_read in ready:
                    return
                self._server.handle_request()  # a connection is waiting: accept it and start its thread

    @property
    def server(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def proxy_settings(self) -> dict[str, str]:
        # "<-loopback>" removes Chromium's implicit bypass of 127.0.0.1/localhost, so loopback is guarded too.
        return {"server": self.server, "bypass": "<-loopback>"}

    def permit_download(self, url: str) -> None:
        """Let exactly one attachment response from ``url`` through (a redeemed download grant)."""
        with self._lock:
            self._download_permits.add(url)

    def take_download_permit(self, url: str) -> bool:
        with self._lock:
            if url in self._download_permits:
                self._download_permits.discard(url)
                return True
            return False

    def record_blocked_download(self, url: str, file_name: str) -> None:
        with self._lock:
            self.blocked_downloads[url] = file_name
            while len(self.blocked_downloads) > 32:
                self.blocked_downloads.pop(next(iter(self.blocked_downloads)))

    def allows_tunnel(self, authority: str) -> bool:
        """CONNECT (TLS or WebSocket tunnels) is allowed to a host:port that some permitted origin uses."""
        target = parse_origin(f"https://{authority}/")
        if target is None:
            return False
        return any(
            (origin := parse_origin(text)) is not None and (origin.host, origin.port) == (target.host, target.port)
            for text in self.origins.origins
        )

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        os.write(self._wake_write, b"x")
        self._thread.join(timeout=5)
        self._server.server_close()
        os.close(self._wake_read)
        os.close(self._wake_write)


def _file_name(url: str, disposition: str) -> str:
    for part in disposition.split(";"):
        name, _, value = part.strip().partition("=")
        if name.lower() == "filename" and value:
            return value.strip().strip('"')
    return unquote(urlsplit(url).path.rsplit("/", 1)[-1])


def _handler_for(guard: NetworkGuard) -> type[BaseHTTPRequestHandler]:
    class GuardHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # one request per connection keeps the proxy simple and leak-free

        def log_message(self, format: str, *args: Any) -> None:
            pass  # never log URLs: they can carry secrets

        def _refuse(self, reason: str) -> None:
            self.send_response(204)
            self.send_header(REFUSED_HEADER, reason)
            self.send_header("Content-Length", "0")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()

        def _forward(self) -> None:
            url = self.path
            if not guard.origins.allows(url):
                self._drain_body()
                self._refuse("policy")
                return
            parts = urlsplit(url)
            body = self._drain_body()
            headers = {key: value for key, value in self.headers.items() if key.lower() not in _HOP_BY_HOP}
            headers["Connection"] = "close"
            # The driver's sessions hold no HTTP credentials; a Basic or Digest answer can only come from
            # credentials a page or model smuggled into a URL's userinfo, so it never leaves the browser.
            for key in [key for key in headers if key.lower() == "authorization"]:
                if headers[key].split(" ", 1)[0].lower() in ("basic", "digest"):
                    del headers[key]
            connection_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
            connection = connection_type(parts.hostname or "", parts.port, timeout=_UPSTREAM_TIMEOUT_S)
            try:
                target = parts.path or "/"
                if parts.query:
                    target += "?" + parts.query
                connection.request(self.command, target, body=body, headers=headers)
                response = connection.getresponse()
                payload = response.read()
                disposition = response.getheader("Content-Disposition", "") or ""
                if disposition.lower().startswith("attachment") and not guard.take_download_permit(url):
                    guard.record_blocked_download(url, _file_name(url, disposition))
                    self._refuse("download")
                    return
                self.send_response(response.status, response.reason)
                for key, value in response.getheaders():
                    if key.lower() not in _HOP_BY_HOP and key.lower() != "content-length":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)
            except (OSError, http.client.HTTPException):
                self._bad_gateway()
            finally:
                connection.close()

        def _drain_body(self) -> bytes | None:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length > 0 else None

        def _bad_gateway(self) -> None:
            try:
                self.send_response(502)
                self.send_header("Content-Length", "0")
                self.end_headers()
            except OSError:
                pass

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _forward

        def do_CONNECT(self) -> None:
            if not guard.allows_tunnel(self.path):
                self.send_response(403)
                self.send_header(REFUSED_HEADER, "policy")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            host, _, port = self.path.rpartition(":")
            try:
                upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=_UPSTREAM_TIMEOUT_S)
            except (OSError, ValueError):
                self._bad_gateway()
                return
            self.send_response(200, "Connection Established")
            self.end_headers()
            _pipe(self.connection, upstream)

    return GuardHandler


def _pipe(client: socket.socket, upstream: socket.socket) -> None:
    """Relay bytes both ways until either side closes."""
    sockets = [client, upstream]
    try:
        while True:
            readable, _, failed = select.select(sockets, [], sockets, _UPSTREAM_TIMEOUT_S)
            if failed or not readable:
                return
            for source in readable:
                data = source.recv(65536)
                if not data:
                    return
                (upstream if source is client else client).sendall(data)
    except OSError:
        return
    finally:
        upstream.close()
