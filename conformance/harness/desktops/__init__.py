"""Isolated desktops for computer drivers: Xvfb, openbox and kiosk Chromium, in Docker or on this host."""

from .base import Desktop, DesktopNotRunningError
from .displays import DisplayReservation, NoFreeDisplayError, reserve_display
from .docker_desktop import DockerDesktop
from .local import LocalDesktop
from .settings import DesktopSettings
from .x11_wait import DesktopStartError

__all__ = [
    "Desktop",
    "DesktopNotRunningError",
    "DesktopSettings",
    "DesktopStartError",
    "DisplayReservation",
    "DockerDesktop",
    "LocalDesktop",
    "NoFreeDisplayError",
    "reserve_display",
]
