"""The ``replayer`` fixture: replay a cassette inside a test.

A project that wants it adds ``pytest_plugins = ["conformance.replay_fixture"]`` to its conftest.py; the kit's
dormant plugin registers no fixture in a project's own test runs (it does in certification runs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from conformance.replay import ReplayReport, replay

Replayer = Callable[..., ReplayReport]


@pytest.fixture
def replayer() -> Iterator[Replayer]:
    """Replay a cassette in a test: ``report = replayer("bug.jsonl", mode="async-eager"); assert report.ok``."""
    yield replay


__all__ = ["Replayer", "replayer"]
