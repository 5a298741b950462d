"""Fixtures for the reference computer driver's unit tests: a bare local desktop showing the input recorder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.harness.desktops import DesktopSettings, LocalDesktop
from tests.desktops import PAGES


@pytest.fixture(scope="module")
def recorder_desktop() -> Iterator[LocalDesktop]:
    """A local desktop showing the input recorder page (one per test module)."""
    with LocalDesktop(DesktopSettings(site_dir=PAGES, start_path="input-recorder.html")) as desktop:
        yield desktop
