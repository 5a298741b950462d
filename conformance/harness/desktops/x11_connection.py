"""Opening an X display with python-xlib when no Xauthority file exists.

python-xlib reads ``$XAUTHORITY`` (default ``~/.Xauthority``) on every connection and fails if the file is
missing, while libX11 treats a missing file as "no cookie". Xvfb started without ``-auth`` needs no cookie, so
on that failure the connection is retried with ``XAUTHORITY`` pointing at a file of this process that holds no
cookie for any real host: to every X client library that means the same as a missing file.
"""

from __future__ import annotations

import os
import struct
import tempfile
import threading

from Xlib import display, error

_fallback_lock = threading.Lock()


# One entry for a host name that never matches: python-xlib prints a warning for a file with no entries at
# all, and an unmatched entry makes it send no cookie, exactly like an empty file.
_UNMATCHED_ENTRY = b"".join(
    struct.pack(">H", len(part)) + part for part in (b"kit-no-such-host", b"0", b"MIT-MAGIC-COOKIE-1", bytes(16))
)


def _use_empty_xauthority() -> None:
    with _fallback_lock:
        current = os.environ.get("XAUTHORITY")
        if current and os.path.exists(current):
            return
        descriptor, path = tempfile.mkstemp(prefix="kit-xauthority-")
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(struct.pack(">H", 256) + _UNMATCHED_ENTRY)  # 256: FamilyLocal
        os.environ["XAUTHORITY"] = path


def open_display(name: str) -> display.Display:
    """A python-xlib connection to ``name``, tolerating a missing Xauthority file."""
    try:
        return display.Display(name)
    except error.XauthError:
        _use_empty_xauthority()
        return display.Display(name)


__all__ = ["open_display"]
