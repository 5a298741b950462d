"""A private Xvfb display for the execution tests and benchmark; Xvfb picks a free number and reports it."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator


@contextlib.contextmanager
def private_display() -> Iterator[str]:
    """``:N`` of a fresh 640x480 Xvfb, stopped on exit; RuntimeError if Xvfb reports no number."""
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "640x480x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    os.close(write_end)
    try:
        with os.fdopen(read_end) as announced:
            number = announced.readline().strip()
        if not number.isdigit():
            raise RuntimeError("Xvfb did not report a display number")
        yield f":{number}"
    finally:
        process.terminate()
        process.wait(timeout=10)
