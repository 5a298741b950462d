"""Broken drivers whose certificates exercise the evidence.

``click_at_offset_without_screenshot`` has ``ClickAtOffset``'s one defect (click_at lands 9 px right, 6 px below)
and offers no ``screenshot`` member, so its certificate's evidence must say no picture could be taken, and why.
``click_offset_computer`` is a computer driver whose click lands 40 px right: its evidence shows the desktop
around the failing click with the point it was asked for drawn.

For the evidence rerun (``--evidence=rerun``): ``counted_click_at_offset`` is ``ClickAtOffset`` whose factory
notes each call in the file ``$DRIVERKIT_TEST_FACTORY_CALLS`` (so a test can count the runs of a check);
``flaky_click_at_offset`` has the defect only in the first driver that clicks, so a check fails once and passes
when run again; ``hanging_click_at`` (counted too) never returns from click_at.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from conformance.harness.environment import Environment
from reference.computer import XvfbComputerDriver
from reference.computer.factories import DesktopEnvironment
from tests.broken.drivers import Arguments, BrokenDriver, ClickAtOffset, Forward, factory_for

COUNT_VARIABLE = "DRIVERKIT_TEST_FACTORY_CALLS"


class ClickAtOffsetWithoutScreenshot(ClickAtOffset):
    """ClickAtOffset without a screenshot member."""

    HIDDEN = ("screenshot",)


click_at_offset_without_screenshot = factory_for(ClickAtOffsetWithoutScreenshot)


def _counted(factory: Callable[[Environment], Iterator[BrokenDriver]]) -> Callable[[Environment], Iterator[Any]]:
    """``factory``, noting each call as one line in ``$DRIVERKIT_TEST_FACTORY_CALLS`` (when set)."""

    def counted(env: Environment) -> Iterator[Any]:
        target = os.environ.get(COUNT_VARIABLE)
        if target:
            with open(target, "a", encoding="utf-8") as calls:
                calls.write(f"{os.getpid()}\n")
        yield from factory(env)

    return counted


counted_click_at_offset = _counted(factory_for(ClickAtOffset))


class FlakyClickAtOffset(ClickAtOffset):
    """ClickAtOffset's defect in the first driver of the process that clicks at a point; later drivers are right."""

    _serials: ClassVar[Iterator[int]] = itertools.count()
    _broken: ClassVar[int | None] = None

    def __init__(self, inner: Any, env: Environment) -> None:
        super().__init__(inner, env)
        self.serial = next(self._serials)

    def broken_click_at(self, arguments: Arguments, forward: Forward) -> Any:
        if FlakyClickAtOffset._broken is None:
            FlakyClickAtOffset._broken = self.serial
        if self.serial == FlakyClickAtOffset._broken:
            return super().broken_click_at(arguments, forward)
        return forward(arguments)


flaky_click_at_offset = factory_for(FlakyClickAtOffset)


class HangingClickAt(BrokenDriver):
    """click_at never returns."""

    def broken_click_at(self, arguments: Arguments, forward: Forward) -> Any:
        time.sleep(3600)
        return forward(arguments)


hanging_click_at = _counted(factory_for(HangingClickAt))


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
