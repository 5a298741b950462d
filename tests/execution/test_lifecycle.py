"""Session lifecycle: explicit end over HTTP, idle eviction, and a cap that frees the oldest idle session first."""

from __future__ import annotations

import contextlib
import http.client
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from reference.execution import SESSIONS_PATH, ExecutionService
from reference.execution.client import TOKEN_VARIABLE
from tests.host_processes import gone_soon, pids_matching, present_soon

from ._http import execute, send, texts
from .conftest import TEST_LIMITS

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop, pytest.mark.container]


def test_delete_ends_a_session_and_its_runtime(service: ExecutionService, token: str) -> None:
    execute(service.endpoint, token, "ending", "kept = 1")
    runtime = service.pool.runtime("ending")
    assert runtime is not None
    assert send(service.endpoint, None, token=None, method="DELETE", path=f"{SESSIONS_PATH}ending").status == 401
    reply = send(service.endpoint, None, token=token, method="DELETE", path=f"{SESSIONS_PATH}ending")
    assert (reply.status, reply.body) == (200, {"ended": True})
    assert runtime.process.poll() is not None
    assert send(service.endpoint, None, token=token, method="DELETE", path=f"{SESSIONS_PATH}ending").status == 404
    assert send(service.endpoint, None, token=token, method="DELETE", path=f"{SESSIONS_PATH}bad%20id").status == 400
    assert any("NameError" in text for text in texts(execute(service.endpoint, token, "ending", "log(kept)")))


def test_the_cap_evicts_the_oldest_idle_session(x_display: str, token: str) -> None:
    with ExecutionService(token, display=x_display, limits=replace(TEST_LIMITS, max_sessions=2)) as small:
        for name in ("first", "second"):
            assert execute(small.endpoint, token, name, f"mine = {name!r}").status == 200
        execute(small.endpoint, token, "first", "log(mine)")  # now "second" is the oldest idle one
        assert execute(small.endpoint, token, "third", "log(3)").status == 200
        assert small.pool.live_sessions() == ["first", "third"]
        assert texts(execute(small.endpoint, token, "first", "log(mine)")) == ["first"]
        notice = texts(execute(small.endpoint, token, "second", "log(1)"))
        assert "needed room" in notice[0]


def test_the_cap_refuses_when_every_session_is_busy(x_display: str, token: str) -> None:
    with ExecutionService(token, display=x_display, limits=replace(TEST_LIMITS, max_sessions=1)) as small:
        execute(small.endpoint, token, "only", "log(1)")
        worker = threading.Thread(target=execute, args=(small.endpoint, token, "only", "time.sleep(1.5)"))
        worker.start()
        while "only" not in small.pool.busy_sessions():
            time.sleep(0.01)
        refused = execute(small.endpoint, token, "other", "log(2)")
        worker.join()
        assert refused.status == 503 and "all busy" in refused.body["error"]


def test_idle_sessions_are_ended(x_display: str, token: str) -> None:
    with ExecutionService(token, display=x_display, limits=replace(TEST_LIMITS, idle_timeout_s=0.4)) as quick:
        execute(quick.endpoint, token, "idle", "kept = 1")
        runtime = quick.pool.runtime("idle")
        assert runtime is not None
        deadline = time.monotonic() + 15
        while quick.pool.live_sessions() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert quick.pool.live_sessions() == []
        # The evictor retires the session first (so no call reaches it), then stops its runtime: the process ends
        # just after the session is gone, not at the same instant (CI once polled in between).
        assert runtime.process.wait(timeout=10) is not None
        assert "idle too long" in texts(execute(quick.endpoint, token, "idle", "log(1)"))[0]


_ORPHAN = (
    "import subprocess, sys\n"
    "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', {marker!r}], start_new_session=True)\n"
    "log('spawned')"
)
# What a session may leave in its scratch folder that once broke clean-up: a folder chain deeper than Python's
# recursion limit, and folders their owner cannot read.
_HOSTILE_SCRATCH = (
    "import os\n"
    "fd = os.open('.', os.O_RDONLY)\n"
    "for _ in range(3000):\n"
    "    os.mkdir('d', dir_fd=fd)\n"
    "    child = os.open('d', os.O_RDONLY, dir_fd=fd)\n"
    "    os.close(fd)\n"
    "    fd = child\n"
    "os.makedirs('locked/inner')\n"
    "os.chmod('locked/inner', 0)\n"
    "os.chmod('locked', 0)\n"
    "log('left')"
)


def _leftovers(pid: int) -> list[Path]:
    """What a service with this PID could leave on the host: scratch roots (older services made them under the
    temporary folder) and cgroups."""
    cgroups = Path("/sys/fs/cgroup")
    return [
        *Path(tempfile.gettempdir()).glob(f"rdk-exec-{pid}-*"),
        *cgroups.glob(f"rdk-exec-{pid}-*"),
        *cgroups.glob(f"*/rdk-exec-{pid}-*"),
    ]


def _call_that_dies_with_the_service(endpoint: str, token: str) -> None:
    # The service dies under this call: the reply is cut (a reset, or a body that ends early).
    with contextlib.suppress(OSError, http.client.HTTPException):
        execute(endpoint, token, "doomed", "while True:\n    pass")


@pytest.mark.parametrize("moment", ["idle", "mid-call"])
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_service_killed_at_any_moment_leaves_nothing_and_starts_again(
    x_display: str, token: str, how: signal.Signals, moment: str
) -> None:
    # SIGKILL gives the service no chance to clean up: bwrap's die-with-parent (tied to the service's long-lived
    # spawner thread) and the PID namespace take down the runtime and a setsid grandchild by themselves, and what
    # the kernel does not free (cgroups) goes when the next service starts. SIGTERM must leave nothing at all.
    service = subprocess.Popen(
        [sys.executable, "-m", "reference.execution", "--display", x_display, "--port", "0"],
        env={**os.environ, TOKEN_VARIABLE: token},
        stdout=subprocess.PIPE,
        text=True,
    )
    marker = f"orphan-{secrets.token_hex(8)}"
    try:
        assert service.stdout is not None
        endpoint = service.stdout.readline().split("listening at ", 1)[1].split()[0]
        assert texts(execute(endpoint, token, "doomed", _ORPHAN.format(marker=marker))) == ["spawned"]
        assert texts(execute(endpoint, token, "doomed", _HOSTILE_SCRATCH)) == ["left"]
        assert present_soon(pids_matching, marker)
        if moment == "mid-call":
            busy = threading.Thread(target=_call_that_dies_with_the_service, args=(endpoint, token))
            busy.start()
            time.sleep(0.5)
    finally:
        service.send_signal(how)
        try:
            service.wait(timeout=30)
        except subprocess.TimeoutExpired:
            service.kill()
            service.wait()
            pytest.fail(f"the service was still running 30 s after {how.name}")
    assert gone_soon(pids_matching, marker), "a process of the killed service's session survived it"
    if how == signal.SIGTERM:
        assert not _leftovers(service.pid), "a service stopped by SIGTERM left these behind"
    leftovers = _leftovers(service.pid)
    with ExecutionService(token, display=x_display, limits=TEST_LIMITS) as again:
        assert not [path for path in leftovers if path.exists()], "the next start did not sweep these"
        assert texts(execute(again.endpoint, token, "after", "log('works')")) == ["works"]
