"""The service refuses to run code unconfined: without the sandbox's tools it does not start, and says why."""

from __future__ import annotations

import os
import shutil
import stat

import pytest

from reference.execution import ExecutionService, SandboxUnavailable
from reference.execution.sandbox import x11_socket

from ._http import execute
from .conftest import TEST_LIMITS


def test_no_bwrap_means_no_service(monkeypatch: pytest.MonkeyPatch, token: str) -> None:
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "bwrap" else real_which(name))
    with pytest.raises(SandboxUnavailable, match="bwrap not found"):
        ExecutionService(token, display=None, limits=TEST_LIMITS)


def test_only_a_local_display_socket_is_granted(x_display: str) -> None:
    socket = x11_socket(x_display)
    assert socket is not None and socket.name == f"X{x_display[1:]}"
    assert x11_socket("remote.example:0") is None
    assert x11_socket(None) is None


def test_each_session_has_its_own_private_scratch_folder(service: ExecutionService, token: str) -> None:
    runtimes = []
    for session in ("one", "two"):
        execute(service.endpoint, token, session, "open('mine', 'w').close()")
        runtime = service.pool.runtime(session)
        assert runtime is not None
        runtimes.append(runtime)
    for runtime in runtimes:
        folder = runtime.scratch.stat()
        assert stat.S_IMODE(folder.st_mode) == 0o700
        assert folder.st_uid == (runtime.uid if os.geteuid() == 0 else os.geteuid())
        assert (runtime.scratch / "mine").stat().st_uid == folder.st_uid
    if os.geteuid() == 0:
        # Started by root: a uid per runtime, none of them root.
        assert len({runtime.uid for runtime in runtimes}) == 2 and 0 not in {runtime.uid for runtime in runtimes}
