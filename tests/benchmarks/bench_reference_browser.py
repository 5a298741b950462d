"""Speed of the reference browser driver beside raw Playwright on the same page, measured in one run.

Targets (issue 3, reference browser driver):
- ``read_page`` on the 2,000-control page takes at most 1.5x Playwright's ``aria_snapshot()`` of that page,
  and its report is no larger than the snapshot text. Printed for the structured BrowserReadV1 report (compact
  JSON), for the smallest complete BrowserReadV1 of the same controls (a floor no structured report can beat),
  for the ``compact_reads=True`` text report, and for both as the SDK's tool output the model receives;
- ``click`` through the driver takes at most 1.5x a raw ``locator.click()`` on the same control.

Both sides run alternately in the same browser, so they share the machine's load of the moment. The raw side
uses its own plain context (no network guard), which is what an app without the driver would do.

    .venv/bin/python tests/benchmarks/bench_reference_browser.py [--rounds 7] [--clicks 30]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from conformance.harness.fixture_server import FixtureServer
from reference.browser import PlaywrightBrowserDriver, launch

READ_TARGET = 1.5
CLICK_TARGET = 1.5


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def envelope(result: object) -> str:
    return json.dumps({"ok": True, "result": result}, ensure_ascii=True)


def json_bytes(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def smallest_complete_report(report: dict[str, Any]) -> dict[str, Any]:
    """The same controls with the shortest unique refs and no page text: no complete BrowserReadV1 is smaller.

    It shows how much of the report's size is the shape of the type itself (its required keys per control).
    """
    elements = []
    for index, element in enumerate(report["elements"]):
        elements.append({**element, "ref": _base36(index)})
    return {"version": 1, "text": "", "elements": elements, "omitted": report["omitted"]}


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while True:
        number, remainder = divmod(number, 36)
        text = digits[remainder] + text
        if number == 0:
            return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7, help="read_page/aria_snapshot pairs")
    parser.add_argument("--clicks", type=int, default=30, help="click pairs")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with FixtureServer() as server, launch() as browser:
        sessions = server.session()
        token = next(sessions)
        url = f"{server.origin()}/s/{token}/gen/large-form.html"
        driver = PlaywrightBrowserDriver.create(browser.browser, allowed_origins=[server.origin()], start_url=url)
        compact = PlaywrightBrowserDriver.create(
            browser.browser, allowed_origins=[server.origin()], start_url=url, compact_reads=True
        )
        raw_context = browser.browser.new_context(viewport={"width": 1280, "height": 720})
        try:
            raw = raw_context.new_page()
            raw.goto(url)
            body = raw.locator("body")
            # Warm both sides once (agent injection, accessibility tree) before timing.
            report = driver.read_page({"filter": "all", "tab_id": None})
            compact_text = compact.read_page({"filter": "all", "tab_id": None})
            snapshot = body.aria_snapshot()
            read_times, compact_times, snapshot_times = [], [], []
            for _ in range(args.rounds):
                read_times.append(timed(lambda: driver.read_page({"filter": "all", "tab_id": None})))
                compact_times.append(timed(lambda: compact.read_page({"filter": "all", "tab_id": None})))
                snapshot_times.append(timed(body.aria_snapshot))
            assert isinstance(report, dict) and isinstance(compact_text, str)
            report_bytes = json_bytes(report)
            floor_bytes = json_bytes(smallest_complete_report(report))
            compact_bytes = len(compact_text.encode("utf-8"))
            snapshot_bytes = len(snapshot.encode("utf-8"))
            # What the model receives: the SDK wraps a read result in a JSON tool output (ASCII-escaped, default
            # separators), so a text report pays for escaped quotes and newlines too. The snapshot is put in the
            # same envelope for a like-for-like figure.
            wire = {name: len(envelope(value)) for name, value in (("report", report), ("compact", compact_text))}
            wire["snapshot"] = len(envelope(snapshot))

            target = next(item["ref"] for item in report["elements"] if item["label"] == "Action 3")
            raw_button = raw.locator('[data-probe="b3"]')
            driver.click({"target": target, "tab_id": None})
            raw_button.click()
            click_times, raw_click_times = [], []
            for _ in range(args.clicks):
                click_times.append(timed(lambda: driver.click({"target": target, "tab_id": None})))
                raw_click_times.append(timed(raw_button.click))
        finally:
            raw_context.close()
            compact.close()
            driver.close()
            sessions.close()

    read_ms, snap_ms = statistics.median(read_times) * 1000, statistics.median(snapshot_times) * 1000
    compact_ms = statistics.median(compact_times) * 1000
    click_ms, raw_ms = statistics.median(click_times) * 1000, statistics.median(raw_click_times) * 1000
    rows = [
        (
            "read_page time / aria_snapshot time",
            read_ms / snap_ms,
            READ_TARGET,
            f"{read_ms:.1f} ms vs {snap_ms:.1f} ms",
        ),
        (
            "read_page bytes / aria_snapshot bytes",
            report_bytes / snapshot_bytes,
            1.0,
            f"{report_bytes} B vs {snapshot_bytes} B ({len(report['elements'])} elements, BrowserReadV1 JSON)",
        ),
        (
            "smallest complete BrowserReadV1 bytes",
            floor_bytes / snapshot_bytes,
            1.0,
            f"{floor_bytes} B: the same controls, 1-2 character refs, no text (a floor, not a mode)",
        ),
        (
            "compact read_page time / aria_snapshot",
            compact_ms / snap_ms,
            READ_TARGET,
            f"{compact_ms:.1f} ms vs {snap_ms:.1f} ms",
        ),
        (
            "compact read_page bytes / aria_snapshot",
            compact_bytes / snapshot_bytes,
            1.0,
            f"{compact_bytes} B vs {snapshot_bytes} B (compact_reads=True)",
        ),
        (
            "tool output bytes, structured / snapshot",
            wire["report"] / wire["snapshot"],
            1.0,
            f"{wire['report']} B vs {wire['snapshot']} B (as the SDK sends a read result to the model)",
        ),
        (
            "tool output bytes, compact / snapshot",
            wire["compact"] / wire["snapshot"],
            1.0,
            f"{wire['compact']} B vs {wire['snapshot']} B",
        ),
        ("driver click / locator.click", click_ms / raw_ms, CLICK_TARGET, f"{click_ms:.1f} ms vs {raw_ms:.1f} ms"),
    ]
    for name, ratio, limit, detail in rows:
        verdict = "ok" if ratio <= limit else "OVER TARGET"
        print(f"{name:40s} ratio {ratio:5.2f} (target <= {limit}) {verdict:11s} {detail}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
