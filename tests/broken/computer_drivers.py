"""Deliberately broken variants of the reference driver, to show the computer suite catches each break."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from conformance.harness.computer_environment import ComputerEnvironment
from reference.computer import XvfbComputerDriver
from reference.computer.coordinates import Region
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


def cropped_screenshot_factory(environment: ComputerEnvironment) -> Iterator[XvfbComputerDriver]:
    """Not a defect: screenshots show only the screen's lower right at half scale, and every action point is
    scaled back, then shifted by the crop's offset (the driver guide's way to fix missed clicks). The suite must
    judge where points land the way these screenshots show the screen, and certify the driver."""
    width, height = environment.screen_size
    region = Region(CROP_LEFT, CROP_TOP, width - CROP_LEFT, height - CROP_TOP)
    with XvfbComputerDriver(environment.display, scale=0.5, region=region) as driver:
        yield driver


# The crop keeps the page's free area (from x=620, y=260) and its calibration marks, and leaves out its typing area.
CROP_LEFT, CROP_TOP = 560, 220
