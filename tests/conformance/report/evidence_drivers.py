"""Broken drivers whose certificates exercise the evidence.

``click_at_offset_without_screenshot`` has ``ClickAtOffset``'s one defect (click_at lands 9 px right, 6 px below)
and offers no ``screenshot`` member, so its certificate's evidence must say no picture could be taken, and why.
``click_offset_computer`` is a computer driver whose click lands 40 px right: its evidence shows the desktop
around the failing click with the point it was asked for drawn.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from reference.computer import XvfbComputerDriver
from reference.computer.factories import DesktopEnvironment
from tests.broken.drivers import ClickAtOffset, factory_for


class ClickAtOffsetWithoutScreenshot(ClickAtOffset):
    """ClickAtOffset without a screenshot member."""

    HIDDEN = ("screenshot",)


click_at_offset_without_screenshot = factory_for(ClickAtOffsetWithoutScreenshot)


class ClickOffsetComputerDriver(XvfbComputerDriver):
    """The reference computer driver, except that click lands 40 screen pixels right of the point asked for."""

    def click(self, action: Any, *, cancelled: Any = None) -> None:
        if isinstance(action, dict):
            shifted: Any = {**action, "x": action["x"] + 40}
        else:
            shifted = action.model_copy(update={"x": action.x + 40})
        super().click(shifted, cancelled=cancelled)


def click_offset_computer(environment: DesktopEnvironment) -> Iterator[ClickOffsetComputerDriver]:
    with ClickOffsetComputerDriver(environment.display) as driver:
        yield driver
