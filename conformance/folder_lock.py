"""One certification at a time per certificate folder.

Two runs writing the same ``--certificate`` folder would each report writing it while the folder keeps whichever
finished last, with the other's evidence pictures mixed in. So a run takes an exclusive ``flock`` on a lock file
inside the folder before any check runs and holds it until the run ends; a second run is refused at once with a
usage error naming the folder and the process that holds it. The kernel drops the lock when the holder dies, so a
crashed run never leaves the folder locked.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Final

LOCK_NAME: Final = ".driverkit.lock"


class FolderInUseError(RuntimeError):
    """Another run holds the folder's lock."""


class FolderLock:
    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK_NAME
        self._descriptor: int | None = None

    def acquire(self) -> None:
        """Take the lock or raise :class:`FolderInUseError`; the folder must exist."""
        while True:
            descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(descriptor, 64).decode("ascii", "replace").strip() or "unknown"
                os.close(descriptor)
                raise FolderInUseError(
                    f"another certification (process {holder}) is writing to {self.path.parent}; wait for it or "
                    "give this run its own --certificate folder"
                ) from None
            # A holder that released between our open and our lock may have removed the file: our lock would
            # then be on a file no later run can see. Lock what the path names now, or try again.
            try:
                same = os.stat(self.path).st_ino == os.fstat(descriptor).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(descriptor)
        os.ftruncate(descriptor, 0)
        os.write(descriptor, f"{os.getpid()}\n".encode("ascii"))
        self._descriptor = descriptor

    def release(self) -> None:
        """Remove the lock file and release the lock (idempotent)."""
        if self._descriptor is None:
            return
        self.path.unlink(missing_ok=True)
        os.close(self._descriptor)
        self._descriptor = None


__all__ = ["LOCK_NAME", "FolderInUseError", "FolderLock"]
