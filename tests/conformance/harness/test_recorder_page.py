"""The desktop's input-recorder page, in Chromium: the layout it reports is the one on the screen.

The computer checks aim by the page's report (where the target and the two calibration marks are). A kiosk window
can reach its final size only after the page loaded, or an infobar can come or go; the mark anchored to the lower
right then moves. A report from before that move placed a cropped screenshot at two scales (0.507x by 0.604x
instead of 0.5x) and blocked 36 computer checks on CO-SHOT-002 in a loaded CI run.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from conformance import resources
from conformance.harness.desktops.page_server import RecordingPageServer
from reference.browser import SyncBrowserProcess

pytestmark = [pytest.mark.browser]

MARK_B_INSET = (24 + 8, 16 + 8)  # input-recorder.html: right 24px, bottom 16px, a 16px square


def _layouts(events: Path) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in events.read_text("utf-8").splitlines() if line]
    return [record for record in records if record.get("type") == "ready"]


def _wait_for_layout(events: Path, width: int, seconds: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        layouts = _layouts(events)
        if layouts and layouts[-1]["width"] == width:
            return layouts[-1]
        time.sleep(0.05)
    raise AssertionError(f"no layout report {width} px wide came; the page reported {_layouts(events)}")


def test_the_page_reports_its_layout_again_when_the_viewport_changes_size(
    browser_process: SyncBrowserProcess, tmp_path: Path
) -> None:
    events = tmp_path / "events.jsonl"
    with RecordingPageServer(resources.pages("desktop"), events) as server:
        page = browser_process.browser.new_page(viewport={"width": 800, "height": 500})
        try:
            page.goto(server.base_url + "input-recorder.html")
            first = _wait_for_layout(events, 800)
            assert first["markB"] == [800 - MARK_B_INSET[0], 500 - MARK_B_INSET[1]]
            page.set_viewport_size({"width": 1000, "height": 700})
            last = _wait_for_layout(events, 1000)
        finally:
            page.close()
    assert last["markB"] == [1000 - MARK_B_INSET[0], 700 - MARK_B_INSET[1]]
    # Only the lower-right mark is anchored to the viewport's size; what the checks placed at load stays put.
    assert (last["markA"], last["targetLeft"], last["targetTop"]) == (
        first["markA"],
        first["targetLeft"],
        first["targetTop"],
    )
