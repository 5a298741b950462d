"""Reserving X display numbers without races, across processes, pytest-xdist workers and containers.

X servers claim display ``:N`` by creating ``/tmp/.XN-lock`` exclusively and writing their pid into it, and they
treat a lock whose pid is dead as stale. A desktop whose X server runs in a container (with its own ``/tmp``)
cannot rely on that, so the host takes the lock itself with the same format: host X servers (Xvfb
``-displayfd`` included) then skip the number while the reserving process lives, and other reservers skip it
too because the lock is created with ``O_EXCL``.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

SOCKET_DIR: Final = Path("/tmp/.X11-unix")
LOCK_DIR: Final = Path("/tmp")
# Container displays start high so they rarely meet the low numbers host X servers pick first.
FIRST_RESERVED_DISPLAY: Final = 100
LAST_RESERVED_DISPLAY: Final = 999


class NoFreeDisplayError(RuntimeError):
    """Every display number in the range is taken."""


def lock_path(number: int) -> Path:
    return LOCK_DIR / f".X{number}-lock"


def socket_path(number: int) -> Path:
    return SOCKET_DIR / f"X{number}"


def _lock_owner(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def ensure_socket_dir() -> None:
    """Create the shared socket directory the way X servers expect it: world-writable and sticky."""
    SOCKET_DIR.mkdir(mode=0o1777, exist_ok=True)
    if SOCKET_DIR.stat().st_mode & 0o1777 != 0o1777:
        SOCKET_DIR.chmod(0o1777)


@dataclass
class DisplayReservation:
    """Display ``:number`` reserved by this process until :meth:`release`."""

    number: int

    @property
    def name(self) -> str:
        return f":{self.number}"

    def release(self, *, remove_socket: bool = True) -> None:
        """Drop the lock and, if asked, the socket an X server left behind on this number (ours by reservation)."""
        if remove_socket:
            with contextlib.suppress(FileNotFoundError):
                socket_path(self.number).unlink()
        if _lock_owner(lock_path(self.number)) == os.getpid():
            with contextlib.suppress(FileNotFoundError):
                lock_path(self.number).unlink()


def _try_reserve(number: int) -> bool:
    if socket_path(number).exists():
        # A live or crashed server owns this socket; only its owner may remove it.
        return False
    path = lock_path(number)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    except FileExistsError:
        owner = _lock_owner(path)
        if owner is None or _alive(owner):
            return False
        # Stale lock: its owner died. Remove it and compete for the number again with O_EXCL.
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
        except FileExistsError:
            return False
    with os.fdopen(descriptor, "w") as stream:
        stream.write(f"{os.getpid():10d}\n")
    return True


def reserve_display(first: int = FIRST_RESERVED_DISPLAY, last: int = LAST_RESERVED_DISPLAY) -> DisplayReservation:
    """Reserve the lowest free display number in ``first..last``."""
    for number in range(first, last + 1):
        if _try_reserve(number):
            return DisplayReservation(number)
    raise NoFreeDisplayError(f"no free X display number between :{first} and :{last}")


__all__ = [
    "SOCKET_DIR",
    "DisplayReservation",
    "NoFreeDisplayError",
    "ensure_socket_dir",
    "lock_path",
    "reserve_display",
    "socket_path",
]
