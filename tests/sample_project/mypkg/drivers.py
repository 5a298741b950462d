"""mypkg's drivers, written the way a driver author writes certification factories.

``make`` is a browser driver factory: it launches one Chromium per certification run (shared between checks
through the environment) and gives every check a fresh Playwright driver limited to the origins the check
allows. ``make_computer`` drives the X display the computer checks start.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from reference.browser import PlaywrightBrowserDriver, sync_factory
from reference.computer import XvfbComputerDriver


def make(env: Any) -> Iterator[PlaywrightBrowserDriver]:
    """One Playwright driver per check; the kit's hints (grants, limits, viewport) reach it unchanged."""
    yield from sync_factory(env)


make_driver = make


def make_computer(env: Any) -> Iterator[XvfbComputerDriver]:
    """A computer driver on the check's display, with short waits (the checks only need them measurable)."""
    with XvfbComputerDriver(env.display, wait_seconds=0.25) as driver:
        yield driver
