"""Waiting for an X display to accept clients and for the browser window to cover the screen."""

from __future__ import annotations

import time
from collections.abc import Callable

from Xlib import X, error

from conformance.harness.desktops.x11_connection import open_display


class DesktopStartError(RuntimeError):
    """The desktop did not come up; the message says which part failed and includes its log when known."""


def wait_for_display(name: str, deadline: float, alive: Callable[[], str | None]) -> None:
    """Return once display ``name`` accepts a client; ``alive`` returns a failure message if the server died."""
    while True:
        failure = alive()
        if failure:
            raise DesktopStartError(failure)
        try:
            open_display(name).close()
            return
        except (error.DisplayError, ConnectionError, OSError):
            pass
        if time.monotonic() > deadline:
            raise DesktopStartError(f"X display {name} did not accept clients in time")
        time.sleep(0.05)


def wait_for_fullscreen_window(
    name: str, width: int, height: int, deadline: float, alive: Callable[[], str | None]
) -> None:
    """Return once the window manager lists a mapped client window of the full screen size (kiosk Chromium)."""
    connection = open_display(name)
    try:
        root = connection.screen().root
        client_list = connection.intern_atom("_NET_CLIENT_LIST")
        while True:
            failure = alive()
            if failure:
                raise DesktopStartError(failure)
            prop = root.get_full_property(client_list, X.AnyPropertyType)
            for window_id in prop.value if prop is not None else ():
                window = connection.create_resource_object("window", window_id)
                try:
                    geometry = window.get_geometry()
                    mapped = window.get_attributes().map_state == X.IsViewable
                except error.BadWindow:
                    continue
                if mapped and geometry.width >= width and geometry.height >= height:
                    return
            if time.monotonic() > deadline:
                raise DesktopStartError(f"no full-screen browser window appeared on {name} in time")
            time.sleep(0.05)
    finally:
        connection.close()


__all__ = ["DesktopStartError", "wait_for_display", "wait_for_fullscreen_window"]
