"""A computer driver's certificate shows the desktop around its failing click, with the point asked for drawn.

``click_offset_computer`` clicks 40 px right of the point; the one check that exposes it runs on a local desktop
(Xvfb) in a child pytest. The evidence must hold the click with its point, the recorder page's events, and the
desktop before and after the click, each with a red ring at the point: "before" is the picture the evidence rerun
took right before the same click (the failure repeats), "after" the kit's own after the first run's click.
"""

from __future__ import annotations

import base64
import io
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from conformance.evidence import THUMBNAIL_WIDTH
from conformance.evidence.rerun import RERUN_PICTURE_NOTE
from tests.broken.certification import run_child

REPOSITORY = Path(__file__).resolve().parents[3]
CHECK = "contracts/computer/check_pointer.py::test_click_lands_once_at_the_point"

pytestmark = [
    pytest.mark.skipif(
        not (shutil.which("Xvfb") and shutil.which("openbox") and Path("/usr/lib/chromium/chromium").exists()),
        reason="Xvfb, openbox and Chromium are needed (apt-get install xvfb openbox chromium)",
    ),
    pytest.mark.browser,
    pytest.mark.desktop,
    pytest.mark.child_run,
]


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    directory = tmp_path_factory.mktemp("computer")
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--computer-driver=tests.broken.evidence_drivers:click_offset_computer",
        f"--certificate={directory}",
        "-p",
        "no:cacheprovider",
        "-q",
        "-k",
        "test_click_lands_once_at_the_point",
    ]
    done = run_child(command, cwd=REPOSITORY, timeout=300)
    path = directory / "certificate.json"
    assert path.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(path.read_text("utf-8")), directory


def _red_near(data_url: str, point: tuple[float, float], screen_width: int) -> bool:
    picture = Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1]))).convert("RGB")
    scale = picture.width / screen_width
    x, y = round(point[0] * scale), round(point[1] * scale)
    around = [picture.getpixel((x + dx, y + dy)) for dx in range(-9, 10) for dy in range(-9, 10)]
    return any(isinstance(p, tuple) and p[0] > 180 and p[1] < 90 and p[2] < 90 for p in around)


def test_the_failing_click_is_shown_before_and_after_with_its_point(certified: tuple[dict[str, Any], Path]) -> None:
    certificate, directory = certified
    statuses = {clause["id"]: clause["status"] for clause in certificate["clauses"]}
    assert statuses["CO-CLICK-001"] == "failed"
    evidence = certificate["evidence"][CHECK]
    assert [call["member"] for call in evidence["calls"]] == ["screenshot", "click"]
    click = json.loads(evidence["calls"][1]["arguments"])
    assert evidence["point"] == [click["x"], click["y"]]
    assert any('"type": "mousedown"' in effect for effect in evidence["effects"])  # the recorder page's events
    assert evidence["rerun"]["repeated"] is True and evidence["before"]["note"] == RERUN_PICTURE_NOTE
    screen_width = int(certificate["subjects"][0]["profile"]["screen size"].split("x")[0])
    for moment in ("before", "after"):
        image = evidence[moment]["image"]
        assert image and image.startswith("data:image/jpeg;base64,"), evidence[moment]
        assert Image.open(io.BytesIO(base64.b64decode(image.split(",", 1)[1]))).width <= THUMBNAIL_WIDTH
        assert _red_near(image, (click["x"], click["y"]), screen_width), f"no point drawn on the {moment} picture"
    page = (directory / "certificate.html").read_text("utf-8")
    assert page.count('<img alt="before the failing step') == 1 and page.count('<img alt="after the failing step') == 1
