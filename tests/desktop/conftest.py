"""Fixtures for the desktop kit tests: a bare Xvfb display for driver unit tests, skips for missing tools."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.harness.desktops import DesktopSettings, LocalDesktop

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages" / "desktop"

needs_x = pytest.mark.skipif(
    not (shutil.which("Xvfb") and shutil.which("openbox") and Path("/usr/lib/chromium/chromium").exists()),
    reason="Xvfb, openbox and Chromium are needed (apt-get install xvfb openbox chromium)",
)


@pytest.fixture(scope="module")
def recorder_desktop() -> Iterator[LocalDesktop]:
    """A local desktop showing the input recorder page (one per test module)."""
    with LocalDesktop(DesktopSettings(site_dir=PAGES, start_path="input-recorder.html")) as desktop:
        yield desktop
