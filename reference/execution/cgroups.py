"""Per-runtime cgroups: bound a runtime's whole process tree (memory and process count), v1 or v2, when writable.

Only a service running as root uses them (an unprivileged one relies on rlimits alone). The runtime joins its
cgroup before bwrap starts, through a tiny ``sh`` prefix, so nothing it forks can escape the bound. Any failure
to set the hierarchy up means no cgroup (the sandbox's rlimits still hold), never a failed service.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shlex
import time
from pathlib import Path
from typing import Final

from .limits import ExecutionLimits

_BASE: Final = Path("/sys/fs/cgroup")
_counter = itertools.count()


class RuntimeCgroup:
    """The cgroup directories (one per v1 controller, or one v2 group) of one runtime."""

    def __init__(self, directories: list[Path]) -> None:
        self.directories = directories

    def join_prefix(self) -> list[str]:
        """``sh -c`` that moves itself into the cgroup(s) and then execs the rest of the command line."""
        joins = "; ".join(f"echo $$ > {shlex.quote(str(d / 'cgroup.procs'))}" for d in self.directories)
        return ["/bin/sh", "-c", f'{joins}; exec "$@"', "sh"]

    def kill_all(self) -> None:
        for directory in self.directories:
            with contextlib.suppress(OSError):
                for pid in (directory / "cgroup.procs").read_text().split():
                    with contextlib.suppress(ProcessLookupError, ValueError):
                        os.kill(int(pid), 9)

    def remove(self) -> None:
        deadline = time.monotonic() + 5
        for directory in self.directories:
            while True:
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    self.kill_all()
                    time.sleep(0.02)


class CgroupRoot:
    """The service's own cgroup parent(s), under which each runtime gets a child."""

    def __init__(self, parents: list[Path], limits: ExecutionLimits, version: int) -> None:
        self.parents = parents
        self.limits = limits
        self.version = version

    def describe(self) -> str:
        limits = self.limits
        return f"v{self.version} memory+pids (memory {limits.memory_bytes} bytes, {limits.max_processes} pids)"

    def create(self, max_processes: int | None = None) -> RuntimeCgroup | None:
        """A child cgroup for one runtime; ``max_processes`` overrides the limits' pids bound (JavaScript)."""
        name = f"runtime-{next(_counter)}"
        made: list[Path] = []
        try:
            for parent in self.parents:
                directory = parent / name
                directory.mkdir()
                made.append(directory)
                self._limit(directory, max_processes or self.limits.max_processes)
        except OSError:
            RuntimeCgroup(made).remove()
            return None
        return RuntimeCgroup(made)

    def _limit(self, directory: Path, max_processes: int) -> None:
        memory, pids = str(self.limits.memory_bytes), str(max_processes)
        if self.version == 2:
            (directory / "memory.max").write_text(memory)
            if (directory / "memory.swap.max").exists():
                (directory / "memory.swap.max").write_text("0")
            (directory / "pids.max").write_text(pids)
        elif directory.parent.parent.name == "memory":
            (directory / "memory.limit_in_bytes").write_text(memory)
        elif directory.parent.parent.name == "pids":
            (directory / "pids.max").write_text(pids)

    def remove(self) -> None:
        RuntimeCgroup(self.parents).remove()


def _sweep(base: Path) -> None:
    """Remove the cgroups a service killed before it could clean up left behind (their PID is gone).

    A runtime of the killed service may still be on its way out (bwrap's die-with-parent and the PID namespace
    take it down, but not at once), and a cgroup with a process in it cannot be removed: so each leftover is
    removed as a runtime's own is, killing what is still in it and retrying for a few seconds, instead of one
    rmdir that left it behind for good when it came too early.
    """
    for parent in base.glob("rdk-exec-*-*"):
        owner = parent.name.split("-")[2]
        if not owner.isdigit() or Path(f"/proc/{owner}").exists():
            continue
        RuntimeCgroup(sorted(parent.glob("runtime-*"))).remove()
        RuntimeCgroup([parent]).remove()


def cgroup_root(limits: ExecutionLimits) -> CgroupRoot | None:
    """A writable cgroup parent for this service's runtimes, or None (then rlimits alone bound them)."""
    for base in (_BASE, _BASE / "memory", _BASE / "pids"):
        _sweep(base)
    name = f"rdk-exec-{os.getpid()}-{next(_counter)}"
    made: list[Path] = []
    try:
        if (_BASE / "cgroup.controllers").exists():
            controllers = (_BASE / "cgroup.controllers").read_text().split()
            if not {"memory", "pids"} <= set(controllers):
                return None
            parent = _BASE / name
            parent.mkdir()
            made.append(parent)
            (parent / "cgroup.subtree_control").write_text("+memory +pids")
            return CgroupRoot(made, limits, 2)
        for controller in ("memory", "pids"):
            parent = _BASE / controller / name
            parent.mkdir()
            made.append(parent)
        return CgroupRoot(made, limits, 1)
    except OSError:
        RuntimeCgroup(made).remove()
        return None
