"""Deliberately broken variants of the reference driver, to show the computer suite catches each break."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from conformance.harness.computer_environment import ComputerEnvironment
from reference.computer import XvfbComputerDriver
from reference.computer.coordinates import CoordinateMap, OffScreenError, Region
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


class _StretchedMap(CoordinateMap):
    """Half the screen's height but its whole width: a screenshot squeezed vertically, points mapped back per axis."""

    @property
    def screenshot_size(self) -> tuple[int, int]:
        return self.region.width, max(1, self.region.height // 2)

    def to_screen(self, x: int, y: int) -> tuple[int, int]:
        width, height = self.screenshot_size
        if not (0 <= x < width and 0 <= y < height):
            raise OffScreenError(f"point ({x}, {y}) is outside the {width}x{height} screenshot")
        return self.region.left + x, self.region.top + min(self.region.height - 1, y * 2)


def stretched_screenshot_factory(environment: DesktopEnvironment) -> Iterator[XvfbComputerDriver]:
    """Screenshots squeezed to half height but not half width: two scales, one per axis. Every action point is
    mapped back per axis, so clicks still land where the screenshot shows; the one defect is the screenshot's
    second scale factor (CO-SHOT-002), which the documents' single coordinate space rules out."""
    with XvfbComputerDriver(environment.display) as driver:
        stretched = _StretchedMap(driver.coordinates.region)
        driver.coordinates = stretched
        driver._capture._mapping = stretched  # the capture resizes to its map's screenshot size
        yield driver


def upscaled_screenshot_factory(environment: DesktopEnvironment) -> Iterator[XvfbComputerDriver]:
    """Not a defect: screenshots twice the screen's size, every action point halved back. The documents ask for one
    coordinate space for screenshots and actions, not for screenshots no larger than the screen."""
    with XvfbComputerDriver(environment.display, scale=2.0) as driver:
        yield driver


# The crop keeps the page's free area (from x=620, y=260) and its calibration marks, and leaves out its typing area.
CROP_LEFT, CROP_TOP = 560, 220
