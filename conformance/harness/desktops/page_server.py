"""A loopback HTTP server that serves a directory of pages and records the events those pages post.

Pages on the desktop report what they saw (pointer, wheel, key and input events) by posting JSON to
``/events``; each object is appended as one line to the events file, so a reader on the other side of a
container boundary only needs that file. The module uses the standard library only, because the desktop
container runs it with the image's own ``python3`` (it is mounted in, not installed).

Run as a script: ``python3 page_server.py --root DIR --events FILE [--port N]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import threading
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

EVENTS_PATH = "/events"
# A page posts small batches; anything larger is a bug in the page or not a page at all.
MAX_EVENT_BODY_BYTES = 1 << 20


class EventLog:
    """Appends JSON objects to a file, one per line, from many request threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        path.touch()

    def append(self, records: list[dict[str, Any]]) -> None:
        lines = "".join(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n" for record in records)
        with self._lock, self.path.open("a", encoding="utf-8") as stream:
            stream.write(lines)
            stream.flush()


class _Handler(SimpleHTTPRequestHandler):
    def __init__(self, *args: Any, event_log: EventLog, **kwargs: Any) -> None:
        self._event_log = event_log
        super().__init__(*args, **kwargs)

    def do_POST(self) -> None:
        if self.path != EVENTS_PATH:
            self.send_error(HTTPStatus.NOT_FOUND, "only /events accepts POST")
            return
        length = int(self.headers.get("Content-Length") or 0)
        if not 0 < length <= MAX_EVENT_BODY_BYTES:
            self.send_error(HTTPStatus.BAD_REQUEST, "event body missing or too large")
            return
        try:
            payload = json.loads(self.rfile.read(length))
        except ValueError:
            self.send_error(HTTPStatus.BAD_REQUEST, "event body is not JSON")
            return
        records = payload if isinstance(payload, list) else [payload]
        if not all(isinstance(record, dict) for record in records):
            self.send_error(HTTPStatus.BAD_REQUEST, "events must be JSON objects")
            return
        self._event_log.append(records)
        self.send_response(HTTPStatus.NO_CONTENT)
        self.end_headers()

    def end_headers(self) -> None:
        # Pages must always be fetched fresh: a cached page would hide an edited fixture.
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: every pointer event is a request."""


class RecordingPageServer:
    """Serves ``root`` on 127.0.0.1 and appends posted events to ``events``. Use as a context manager."""

    def __init__(self, root: Path, events: Path, port: int = 0) -> None:
        if not root.is_dir():
            raise NotADirectoryError(f"page directory {root} does not exist")
        self.event_log = EventLog(events)
        handler = functools.partial(_Handler, directory=str(root), event_log=self.event_log)
        self._server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> RecordingPageServer:
        # A short poll: serve_forever sees shutdown() only at its next one (the default half second made every
        # stop wait for it).
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="page-server", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> RecordingPageServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, required=True, help="directory of pages to serve")
    parser.add_argument("--events", type=Path, required=True, help="file the posted events are appended to")
    parser.add_argument("--port", type=int, default=8000, help="loopback port (default 8000)")
    arguments = parser.parse_args(argv)
    server = RecordingPageServer(arguments.root, arguments.events, arguments.port)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
