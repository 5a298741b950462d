"""A computer driver whose action methods hand back a value instead of returning nothing (CO-SHAPE-003)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from reference.computer import XvfbComputerDriver
from reference.computer.factories import DesktopEnvironment


class ReportingDriver(XvfbComputerDriver):
    """The reference driver, but click reports what it did, as a status string the SDK then drops."""

    def click(self, action: Any, *, cancelled: Any = None) -> Any:  # type: ignore[override]
        super().click(action, cancelled=cancelled)
        return f"clicked at {action.x},{action.y}"


def reporting_factory(environment: DesktopEnvironment) -> Iterator[ReportingDriver]:
    with ReportingDriver(environment.display) as driver:
        yield driver
