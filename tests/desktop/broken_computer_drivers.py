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
