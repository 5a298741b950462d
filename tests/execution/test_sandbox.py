"""The service refuses to run code unconfined: without the sandbox's tools it does not start, and says why."""

from __future__ import annotations

import shutil

import pytest

from reference.execution import ExecutionService, SandboxUnavailable
from reference.execution.sandbox import x11_socket

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
