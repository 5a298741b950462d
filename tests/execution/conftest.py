"""Fixtures for the execution service tests: a private Xvfb display and a running service on loopback."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from reference.execution import ExecutionLimits, ExecutionService

# Small limits so each limit can be crossed quickly.
TEST_LIMITS = ExecutionLimits(deadline_s=2.0, memory_bytes=768 * 1024 * 1024, max_text_bytes=2_000, max_images=2)


@pytest.fixture(scope="session")
def x_display() -> Iterator[str]:
    """A fresh Xvfb display (``:N``); Xvfb chooses a free number itself and reports it on a pipe."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "640x480x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    os.close(write_end)
    try:
        with os.fdopen(read_end) as announced:
            number = announced.readline().strip()
        if not number.isdigit():
            pytest.fail("Xvfb did not report a display number")
        yield f":{number}"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def token() -> str:
    return secrets.token_urlsafe(24)


@pytest.fixture
def service(x_display: str, token: str) -> Iterator[ExecutionService]:
    # One service per test: every test starts from no live sessions, and stopping the service stops its runtimes.
    with ExecutionService(token, display=x_display, limits=TEST_LIMITS) as running:
        yield running
