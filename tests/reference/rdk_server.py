"""A small fixture server for the reference driver's own tests.

It serves fixtures/pages on two loopback origins ("main" is permitted, "other" is not), records every request
per origin and every effect the pages' recorder posts, and offers the few special endpoints the tests need
(redirect, download, slow response, generated large pages). The kit's conformance server offers the same for
contract checks; this one keeps the reference tests independent of it.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".png": "image/png", ".txt": "text/plain"}


def huge_page(nodes: int) -> str:
    rows = "".join(f"<div><span>Row {index}</span></div>" for index in range(nodes // 2))
    return f"<!doctype html><title>Huge</title><button id='top'>Top</button>{rows}<script src='recorder.js'></script>"


def large_form(controls: int = 2000) -> str:
    parts = ["<!doctype html><title>Large form</title><form onsubmit='return false'>"]
    for index in range(controls // 4):
        parts.append(
            f"<p><label for='t{index}'>Field {index}</label><input id='t{index}' data-probe='t{index}'>"
            f"<input type='checkbox' id='c{index}'><label for='c{index}'>Option {index}</label>"
            f"<label for='s{index}'>Choice {index}</label><select id='s{index}'><option>A</option>"
            f"<option>B</option></select><button type='button' data-probe='b{index}'>Button {index}</button></p>"
        )
    parts.append("</form><script src='recorder.js'></script>")
    return "".join(parts)


@dataclass
class Record:
    requests: list[tuple[str, str, str]] = field(default_factory=list)  # (origin name, method, path)
    effects: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(name: str, record: Record) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            parts = urlsplit(self.path)
            with record.lock:
                record.requests.append((name, "POST", parts.path))
                if parts.path.endswith("/__effect"):
                    with contextlib.suppress(ValueError):
                        record.effects.append(json.loads(body))
                elif parts.path.endswith("/__upload"):
                    record.effects.append({"kind": "upload", "size": len(body)})
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = parse_qs(parts.query)
            with record.lock:
                record.requests.append((name, "GET", parts.path))
            path = parts.path.lstrip("/")
            if self.headers.get("Authorization"):
                with record.lock:
                    record.authorizations.append(self.headers["Authorization"])
            if path == "__auth":
                if self.headers.get("Authorization"):
                    self._send(200, b"<!doctype html><title>Signed in</title>", _TYPES[".html"])
                else:
                    self._send(
                        401,
                        b"<!doctype html><title>Sign in required</title>",
                        _TYPES[".html"],
                        {"WWW-Authenticate": 'Basic realm="partners"'},
                    )
            elif path == "__redirect":
                self._send(302, b"", "text/plain", {"Location": query["to"][0]})
            elif path.startswith("__download/"):
                file_name = path.split("/", 1)[1]
                self._send(
                    200,
                    b"report contents\n",
                    "text/plain",
                    {"Content-Disposition": f'attachment; filename="{file_name}"'},
                )
            elif path == "__slow":
                time.sleep(int(query.get("ms", ["1000"])[0]) / 1000)
                self._send(200, b"<!doctype html><title>Slow</title><p>slow</p>", _TYPES[".html"])
            elif path == "gen/huge.html":
                self._send(200, huge_page(int(query.get("nodes", ["50000"])[0])).encode(), _TYPES[".html"])
            elif path == "gen/large-form.html":
                self._send(200, large_form().encode(), _TYPES[".html"])
            elif (path.startswith("gen/") and path.endswith("recorder.js")) or path.endswith("recorder.js"):
                self._send(200, (PAGES / "recorder.js").read_bytes(), _TYPES[".js"])
            else:
                file = (PAGES / path).resolve()
                if PAGES not in file.parents or not file.is_file():
                    self._send(404, b"not found", "text/plain")
                    return
                self._send(200, file.read_bytes(), _TYPES.get(file.suffix, "application/octet-stream"))

    return Handler


@dataclass
class FixtureServer:
    main: str
    other: str
    record: Record

    def url(self, page: str, *, origin: str = "main") -> str:
        return f"{self.main if origin == 'main' else self.other}/{page}"

    def requests_to(self, origin: str) -> list[tuple[str, str, str]]:
        with self.record.lock:
            return [item for item in self.record.requests if item[0] == origin]

    def effects(self, kind: str | None = None) -> list[dict[str, Any]]:
        with self.record.lock:
            return [effect for effect in self.record.effects if kind is None or effect.get("kind") == kind]

    def wait_for_effect(
        self, kind: str, predicate: Callable[[dict[str, Any]], bool] | None = None, timeout: float = 5.0
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [effect for effect in self.effects(kind) if predicate is None or predicate(effect)]
            if found:
                return found[-1]
            time.sleep(0.02)
        raise AssertionError(f"no {kind!r} effect within {timeout} s")

    def reset(self) -> None:
        with self.record.lock:
            self.record.requests.clear()
            self.record.effects.clear()
            self.record.authorizations.clear()


def serve() -> Iterator[FixtureServer]:
    record = Record()
    servers = [ThreadingHTTPServer(("127.0.0.1", 0), _handler(name, record)) for name in ("main", "other")]
    for server in servers:
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        main, other = (f"http://127.0.0.1:{server.server_address[1]}" for server in servers)
        yield FixtureServer(main, other, record)
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
