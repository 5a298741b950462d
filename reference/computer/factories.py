"""Conformance factories for the reference drivers (``--computer-driver=reference.computer:sync_factory``).

The computer contract suite calls a factory with its environment object and uses what it yields as the driver
under test; the generator form lets the factory close the driver when the check is done.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from .async_driver import AsyncXvfbComputerDriver
from .driver import XvfbComputerDriver

# Waits in the suite only need to be measurable, not the interactive default of one second.
CONFORMANCE_WAIT_SECONDS = 0.25


class DesktopEnvironment(Protocol):
    """What a factory needs from the suite's environment: the X display the desktop shows."""

    @property
    def display(self) -> str: ...


def sync_factory(environment: DesktopEnvironment) -> Iterator[XvfbComputerDriver]:
    with XvfbComputerDriver(environment.display, wait_seconds=CONFORMANCE_WAIT_SECONDS) as driver:
        yield driver


def scaled_sync_factory(environment: DesktopEnvironment) -> Iterator[XvfbComputerDriver]:
    """Sends half-size screenshots, so every action point must be doubled on the way back to the screen."""
    with XvfbComputerDriver(environment.display, scale=0.5, wait_seconds=CONFORMANCE_WAIT_SECONDS) as driver:
        yield driver


def async_factory(environment: DesktopEnvironment) -> Iterator[AsyncXvfbComputerDriver]:
    driver = AsyncXvfbComputerDriver(environment.display, wait_seconds=CONFORMANCE_WAIT_SECONDS)
    try:
        yield driver
    finally:
        driver.close()


__all__ = ["CONFORMANCE_WAIT_SECONDS", "async_factory", "scaled_sync_factory", "sync_factory"]
