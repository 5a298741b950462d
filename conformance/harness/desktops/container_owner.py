"""Who owns a desktop container: its name and labels, and the sweep that removes containers their owner left.

With ``-n N --desktop=docker`` every xdist worker starts its own desktop container. Each is named after the run
and the worker (``kit-desktop-<run>-gw0-<display>``) so ``docker ps`` shows whose it is, and labelled with the
process that owns it: its host name, PID and that process's start time (a PID alone can be reused). The owner
removes its container when the desktop stops, and at interpreter exit if it never got there; a worker that
crashed or was killed runs neither, so every desktop start, and the end of a run, sweeps the containers whose
owning process on this host is gone. Containers of live processes, of other hosts sharing the engine, and of
other tools are never touched.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import uuid
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from conformance.harness.process_lifetime import process_started

LABEL: Final = "org.responses-driver-kit.desktop"
RUN_LABEL: Final = f"{LABEL}.run"
WORKER_LABEL: Final = f"{LABEL}.worker"
HOST_LABEL: Final = f"{LABEL}.owner-host"
PID_LABEL: Final = f"{LABEL}.owner-pid"
STARTED_LABEL: Final = f"{LABEL}.owner-started"
# Set by pytest-xdist in its workers: the run's shared identifier and the worker's own (gw0, gw1...).
RUN_VARIABLE: Final = "PYTEST_XDIST_TESTRUNUID"
WORKER_VARIABLE: Final = "PYTEST_XDIST_WORKER"
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.-]")


@cache
def _solo_run_id() -> str:
    # A run without xdist has no shared identifier: one per process.
    return uuid.uuid4().hex


@dataclass(frozen=True)
class ContainerOwner:
    """The process a desktop container belongs to, and the run and worker it serves."""

    run_id: str
    worker: str
    host: str
    pid: int
    started: str

    @classmethod
    def current(cls) -> ContainerOwner:
        pid = os.getpid()
        return cls(
            run_id=os.environ.get(RUN_VARIABLE) or _solo_run_id(),
            worker=os.environ.get(WORKER_VARIABLE) or "main",
            host=socket.gethostname(),
            pid=pid,
            started=process_started(pid) or "unknown",
        )

    def container_name(self, display: int) -> str:
        """Unique on this engine while the display number is reserved; readable in ``docker ps``."""
        run = _UNSAFE.sub("", self.run_id)[:12] or "run"
        return f"kit-desktop-{run}-{_UNSAFE.sub('_', self.worker)}-{display}"

    def labels(self) -> dict[str, str]:
        return {
            LABEL: "1",
            RUN_LABEL: self.run_id,
            WORKER_LABEL: self.worker,
            HOST_LABEL: self.host,
            PID_LABEL: str(self.pid),
            STARTED_LABEL: self.started,
        }


def abandoned(labels: dict[str, str], host: str | None = None) -> bool:
    """Whether a container with these labels belongs to a process of this host that no longer runs."""
    if labels.get(HOST_LABEL) != (host or socket.gethostname()):
        return False
    pid_text = labels.get(PID_LABEL, "")
    if not pid_text.isdigit():
        return False
    started = process_started(int(pid_text))
    return started is None or started != labels.get(STARTED_LABEL)


def sweep(client: Any) -> list[str]:
    """Remove the kit's desktop containers whose owner on this host is gone; the names removed."""
    import docker

    removed = []
    for container in client.containers.list(all=True, filters={"label": LABEL}):
        if abandoned(dict(container.labels or {})):
            # Another worker may be sweeping the same container at this moment.
            with contextlib.suppress(docker.errors.NotFound, docker.errors.APIError):
                container.remove(force=True)
                removed.append(str(container.name))
    return removed


def remove_quietly(client: Any, container_id: str) -> None:
    """Remove a container if it still exists (the interpreter-exit hook of a desktop that was never stopped)."""
    with contextlib.suppress(Exception):
        client.containers.get(container_id).remove(force=True)


__all__ = ["LABEL", "ContainerOwner", "abandoned", "process_started", "remove_quietly", "sweep"]
