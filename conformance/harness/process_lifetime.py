"""What the kit starts dies with its run: on a shared machine nothing it launched may outlive it.

Two ways a process escapes its run:

- the run is killed (SIGKILL, a CI timeout, a crashed worker), so no teardown runs: a :class:`Lifeline` is a small
  watcher process holding the read end of a pipe whose write end only the kit holds. The kernel closes that end
  whenever the kit's process ends, however it ends; the watcher then stops the process groups it was told about
  and removes their scratch folders. A normal stop does that work itself first and then lets the watcher go.
- driver code the kit gave up on (a factory or a call past its deadline) keeps running on an abandoned thread and
  starts a browser nobody will close: :func:`stop_leftovers` stops what still runs under the kit's process when
  the session ends, after every driver the kit could close was closed.

Process identity is a PID plus its start time (/proc), since a PID alone can be reused by then.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

_GRACE_SECONDS: Final = 3.0
# Watchers of this process that are still guarding something: they run under it, but are not leftovers.
_watchers: set[int] = set()


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (which is in parentheses and may hold spaces)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text("ascii", "replace")
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()


def process_started(pid: int) -> str | None:
    """The start time of process ``pid`` (clock ticks since boot, field 22 of its stat), or None when it is gone."""
    fields = _stat(pid)
    return fields[19] if fields is not None and len(fields) > 19 else None


def _running(pid: int, started: str) -> bool:
    """Whether ``pid`` is still the process that started at ``started`` and has not exited (a zombie has)."""
    fields = _stat(pid)
    return fields is not None and len(fields) > 19 and fields[19] == started and fields[0] != "Z"


def _parent_of(pid: int) -> int | None:
    fields = _stat(pid)
    # The state, then the parent's PID; a zombie has already exited and is no one's to stop.
    return int(fields[1]) if fields is not None and len(fields) > 1 and fields[0] != "Z" else None


@dataclass(frozen=True)
class Leftover:
    pid: int
    started: str
    name: str


def children_by_parent() -> dict[int, list[int]]:
    """Every live process's PID under its parent's, from /proc (empty where there is none: not Linux). A process
    that ends while it is read, or has ended and waits to be reaped, is left out."""
    children: dict[int, list[int]] = {}
    if not Path("/proc/self/stat").exists():
        return children
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (parent := _parent_of(int(entry.name))) is not None:
            children.setdefault(parent, []).append(int(entry.name))
    return children


def descendants(root: int | None = None) -> list[Leftover]:
    """Every live process under ``root`` (this process by default), children before their own children."""
    root = os.getpid() if root is None else root
    children = children_by_parent()
    found: list[Leftover] = []
    pending = list(children.get(root, ()))
    while pending:
        pid = pending.pop(0)
        started = process_started(pid)
        if started is None:
            continue
        try:
            name = Path(f"/proc/{pid}/comm").read_text("utf-8", "replace").strip()
        except OSError:
            continue
        found.append(Leftover(pid, started, name))
        pending += children.get(pid, ())
    return found


def _signal_if_running(process: Leftover, signum: int) -> None:
    if _running(process.pid, process.started):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(process.pid, signum)


def stop_leftovers() -> list[str]:
    """Stop every process still running under this one (except its live lifelines); one entry per kind stopped.

    SIGTERM first so a browser can close its profile, SIGKILL for what is still there after a grace period.
    This process's own children among them are reaped, so none stays behind as a zombie.
    """
    own = os.getpid()
    leftovers = [process for process in descendants() if process.pid not in _watchers]
    if not leftovers:
        return []
    children = [process.pid for process in leftovers if _parent_of(process.pid) == own]
    for process in leftovers:
        _signal_if_running(process, signal.SIGTERM)
    deadline = time.monotonic() + _GRACE_SECONDS
    while time.monotonic() < deadline and any(_running(p.pid, p.started) for p in leftovers):
        time.sleep(0.05)
    for process in leftovers:
        _signal_if_running(process, signal.SIGKILL)
    for pid in children:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    counts: dict[str, int] = {}
    for process in leftovers:
        counts[process.name] = counts.get(process.name, 0) + 1
    return [f"{name} x{count}" if count > 1 else name for name, count in sorted(counts.items())]


class Lifeline:
    """A watcher that stops the process groups (and removes the folders) it guards once this process is gone."""

    def __init__(self) -> None:
        self._watcher = subprocess.Popen(
            [sys.executable, "-I", "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C at the terminal must not stop the guard before what it guards
        )
        _watchers.add(self._watcher.pid)

    @property
    def _pipe(self) -> IO[bytes]:
        assert self._watcher.stdin is not None
        return self._watcher.stdin

    def guard_group(self, pid: int) -> None:
        """Stop the process group led by ``pid`` (started with its own session) if this process ends first."""
        started = process_started(pid)
        if started is not None:
            self._pipe.write(f"group {pid} {started}\n".encode())
            self._pipe.flush()

    def guard_folder(self, folder: Path) -> None:
        self._pipe.write(f"folder {os.fsencode(folder).hex()}\n".encode())
        self._pipe.flush()

    def release(self) -> None:
        """Everything guarded has been stopped by its owner: the watcher finds nothing left and exits."""
        with contextlib.suppress(OSError):
            self._pipe.close()
        try:
            self._watcher.wait(_GRACE_SECONDS * 2)
        except subprocess.TimeoutExpired:
            self._watcher.kill()
            self._watcher.wait()
        _watchers.discard(self._watcher.pid)


def _watch(pipe: IO[bytes]) -> None:
    """The watcher's side: read what to guard until the pipe closes, then stop and remove it."""
    groups: list[tuple[int, str]] = []
    folders: list[Path] = []
    for line in pipe:
        kind, _, rest = line.decode("ascii", "replace").strip().partition(" ")
        if kind == "group":
            leader, started = rest.split()
            groups.append((int(leader), started))
        elif kind == "folder":
            folders.append(Path(os.fsdecode(bytes.fromhex(rest))))
    # Newest first: the browser before its window manager before the X server, as a normal stop does.
    for signum in (signal.SIGTERM, signal.SIGKILL):
        live = [(pid, started) for pid, started in reversed(groups) if _running(pid, started)]
        for pid, _ in live:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signum)
        deadline = time.monotonic() + _GRACE_SECONDS
        while live and time.monotonic() < deadline:
            live = [(pid, started) for pid, started in live if _running(pid, started)]
            time.sleep(0.05)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _watch(sys.stdin.buffer)


__all__ = ["Leftover", "Lifeline", "descendants", "process_started", "stop_leftovers"]
