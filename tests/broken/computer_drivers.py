"""Deliberately broken variants of the reference driver, to show the computer suite catches each break."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from reference.computer import XvfbComputerDriver
from reference.computer.factories import DesktopEnvironment
from reference.computer.keys import UnknownKeyError


class CornerCuttingDriver(XvfbComputerDriver):
    """Ignores what it cannot do, clicks once for a double click, and returns from wait at once."""

    def keypress(self, action: Any, *, cancelled: Any = None) -> None:
        # The silent no-op the contract forbids.
        with contextlib.suppress(UnknownKeyError):
            super().keypress(action, cancelled=cancelled)

    def double_click(self, action: Any, *, cancelled: Any = None) -> None:
        self.click({"type": "click", "x": action.x, "y": action.y, "button": "left"}, cancelled=cancelled)

    def wait(self, action: Any = None, *, cancelled: Any = None) -> None:
        return None


def corner_cutting_factory(environment: DesktopEnvironment) -> Iterator[CornerCuttingDriver]:
    with CornerCuttingDriver(environment.display) as driver:
        yield driver


class UntypedScreenshotDriver(XvfbComputerDriver):
    """Returns its screenshot without ``"type": "computer_screenshot"``: the SDK refuses it, after every action too.

    Every action the suite performs goes through the SDK's toolset, which ends each call with a screenshot, so the
    one defect must fail only the screenshot clause (CO-SHOT-001), never the click it followed.
    """

    def screenshot(self, *, cancelled: Any = None) -> Any:
        shot = dict(super().screenshot(cancelled=cancelled))
        shot.pop("type", None)
        return shot


def untyped_screenshot_factory(environment: DesktopEnvironment) -> Iterator[UntypedScreenshotDriver]:
    with UntypedScreenshotDriver(environment.display) as driver:
        yield driver
