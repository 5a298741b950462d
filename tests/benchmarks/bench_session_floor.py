"""What one browser session costs at the least, beside what the reference driver's session costs.

Certification opens a driver for every check, so a check cannot cost less than a fresh context, its page and
one page load. This script measures that floor with bare Playwright, and the reference driver's open and close
(its network guard, page agent and start page included), alternately in one browser, as machine-wide busy
core-seconds (``/proc/stat``: Chromium's processes count) and wall time per session. The ratio says how much the
reference driver adds to the floor; ``cpu_by_check.py`` says what a whole check costs beside it.

    .venv/bin/python tests/benchmarks/bench_session_floor.py [--sessions 30]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from reference.browser import PlaywrightBrowserDriver, launch
from reference.browser._launch import context_options

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # a script run puts only this folder on the path

from tests.benchmarks.machine_cpu import busy_seconds

VIEWPORT = (1280, 720)
_PAGE = b"<!doctype html><title>floor</title><p>A page with a control.</p><button>Go</button>"


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(_PAGE)))
        self.end_headers()
        # The context may close while its page still reads: then there is nothing left to serve.
        with contextlib.suppress(OSError):
            self.wfile.write(_PAGE)

    def log_message(self, *arguments: object) -> None:
        pass


def _cost(session: Callable[[], None], count: int) -> tuple[float, float]:
    """(busy core-s, wall s) per session over ``count`` sessions, after one not counted (first-use costs)."""
    session()
    busy, wall = busy_seconds(), time.perf_counter()
    for _ in range(count):
        session()
    return (busy_seconds() - busy) / count, (time.perf_counter() - wall) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=30, help="sessions per measurement (default 30)")
    parser.add_argument("--rounds", type=int, default=2, help="alternations of the two (default 2)")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_port}"
    with launch() as process:
        browser = process.browser

        def bare() -> None:
            context = browser.new_context(**context_options(VIEWPORT))
            context.new_page().goto(origin + "/")
            context.close()

        def reference() -> None:
            PlaywrightBrowserDriver.create(browser, allowed_origins=[origin], start_url=origin + "/").close()

        totals = {"bare": [0.0, 0.0], "reference": [0.0, 0.0]}
        for _ in range(args.rounds):
            for name, session in (("bare", bare), ("reference", reference)):
                busy, wall = _cost(session, args.sessions)
                totals[name][0] += busy / args.rounds
                totals[name][1] += wall / args.rounds
    server.shutdown()
    for name, label in (("bare", "bare Playwright: context, page, load, close"), ("reference", "reference driver")):
        busy, wall = totals[name]
        print(f"{label}: {busy:.3f} busy core-s and {wall:.3f} s per session")
    ratio = totals["reference"][0] / totals["bare"][0]
    print(f"reference / bare: {ratio:.2f}x the CPU, {totals['reference'][1] / totals['bare'][1]:.2f}x the wall time")


if __name__ == "__main__":
    main()
