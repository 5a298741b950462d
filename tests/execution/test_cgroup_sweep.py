"""A service killed before it could clean up leaves cgroups behind; the next service removes them, even when a
runtime of the killed service is still in one (the race CI once lost: a single rmdir came while the runtime was
on its way out, and the leftover stayed for good)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference.execution.cgroups import _sweep

PIDS = Path("/sys/fs/cgroup/pids")

pytestmark = [
    pytest.mark.skipif(
        os.geteuid() != 0 or not (PIDS / "cgroup.procs").exists(), reason="needs root and a cgroup v1 pids hierarchy"
    ),
    pytest.mark.desktop,
    pytest.mark.container,
]


def _dead_pid() -> int:
    """A PID that was just used and whose process is gone (so the sweep takes it for a killed service's)."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


@pytest.fixture
def leftover_with_a_process() -> Iterator[tuple[Path, subprocess.Popen[bytes]]]:
    parent = PIDS / f"rdk-exec-{_dead_pid()}-0"
    runtime = parent / "runtime-0"
    runtime.mkdir(parents=True)
    straggler = subprocess.Popen(["sleep", "600"])
    (runtime / "cgroup.procs").write_text(str(straggler.pid))
    try:
        yield parent, straggler
    finally:
        straggler.kill()
        straggler.wait()
        for directory in (runtime, parent):
            if directory.exists():
                directory.rmdir()


def test_a_leftover_cgroup_with_a_process_still_in_it_is_removed(
    leftover_with_a_process: tuple[Path, subprocess.Popen[bytes]],
) -> None:
    parent, straggler = leftover_with_a_process
    _sweep(PIDS)
    assert not parent.exists(), "the killed service's cgroup is still there"
    assert straggler.wait(timeout=5) == -9, "the straggler in it was not killed"
