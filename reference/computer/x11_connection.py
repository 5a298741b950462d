"""Opening an X display with python-xlib when no Xauthority file exists.

python-xlib reads ``$XAUTHORITY`` (default ``~/.Xauthority``) on every connection and fails if the file is
missing, while libX11 treats a missing file as "no cookie". Xvfb started without ``-auth`` needs no cookie, so
on that failure the connection is retried with ``XAUTHORITY`` pointing at an empty file of this process: an
empty file means the same as a missing one to every X client library.
"""

from __future__ import annotations

import os
import tempfile
import threading

from Xlib import display, error

_fallback_lock = threading.Lock()


def _use_empty_xauthority() -> None:
    with _fallback_lock:
        current = os.environ.get("XAUTHORITY")
        if current and os.path.exists(current):
            return
        descriptor, path = tempfile.mkstemp(prefix="kit-xauthority-")
        os.close(descriptor)
        os.environ["XAUTHORITY"] = path


def open_display(name: str) -> display.Display:
    """A python-xlib connection to ``name``, tolerating a missing Xauthority file."""
    try:
        return display.Display(name)
    except error.XauthError:
        _use_empty_xauthority()
        return display.Display(name)


__all__ = ["open_display"]
