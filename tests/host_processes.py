"""Host-side views of processes, to check from outside (a sandbox, a killed run) that what it started is really gone."""

from __future__ import annotations

import os
import time
from pathlib import Path


def alive(pid: int | str) -> bool:
    try:
        # A zombie is dead for our purposes; its state letter says so.
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def pids_matching(marker: str) -> list[int]:
    """Live host processes whose command line contains ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if marker.encode() in cmdline and alive(entry):
            found.append(int(entry))
    return found


def pids_of_uid(uid: int) -> list[int]:
    """Live host processes whose real uid is ``uid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        real = next((line.split()[1] for line in status.splitlines() if line.startswith("Uid:")), None)
        if real == str(uid) and alive(entry):
            found.append(int(entry))
    return found


def gone_soon(probe: object, *args: object, within_s: float = 10.0) -> bool:
    """True once ``probe(*args)`` returns nothing; the wait only bounds a kernel's asynchronous cleanup."""
    assert callable(probe)
    deadline = time.monotonic() + within_s
    while probe(*args):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def present_soon(probe: object, *args: object, within_s: float = 10.0) -> bool:
    """True once ``probe(*args)`` returns something (a process seen from the host may lag its start)."""
    assert callable(probe)
    deadline = time.monotonic() + within_s
    while not probe(*args):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
