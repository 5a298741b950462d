"""Reference computer drivers: native computer actions on an X display through XTEST, screenshots with mss."""

from .async_driver import AsyncXvfbComputerDriver
from .coordinates import CoordinateMap, OffScreenError, Region
from .driver import ActionCancelled, XvfbComputerDriver
from .factories import async_factory, scaled_sync_factory, sync_factory
from .keys import UnknownKeyError

__all__ = [
    "ActionCancelled",
    "AsyncXvfbComputerDriver",
    "CoordinateMap",
    "OffScreenError",
    "Region",
    "UnknownKeyError",
    "XvfbComputerDriver",
    "async_factory",
    "scaled_sync_factory",
    "sync_factory",
]
