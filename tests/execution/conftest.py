"""Fixtures for the execution service tests: a private Xvfb display and a running service on loopback."""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Iterator

import pytest

from reference.execution import ExecutionLimits, ExecutionService

from ._xvfb import private_display

# Small limits so each limit can be crossed quickly.
TEST_LIMITS = ExecutionLimits(
    deadline_s=2.0,
    memory_bytes=768 * 1024 * 1024,
    max_text_bytes=2_000,
    max_images=2,
    scratch_bytes=64 * 1024 * 1024,
)


@pytest.fixture(scope="session")
def x_display() -> Iterator[str]:
    """A fresh Xvfb display (``:N``); Xvfb chooses a free number itself and reports it on a pipe."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb)")
    try:
        with private_display() as display:
            yield display
    except RuntimeError as problem:
        pytest.fail(str(problem))


@pytest.fixture(scope="module")
def token() -> str:
    return secrets.token_urlsafe(24)


@pytest.fixture
def service(x_display: str, token: str) -> Iterator[ExecutionService]:
    # One service per test: every test starts from no live sessions, and stopping the service stops its runtimes.
    with ExecutionService(token, display=x_display, limits=TEST_LIMITS) as running:
        yield running
