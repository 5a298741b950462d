"""The kit's own tests: pytester, and the process audit behind the test tiers (tests/process_kinds.py).

Every test that starts a browser, a desktop, a container, a child certification or Node carries that marker.
With ``DRIVERKIT_PROCESS_AUDIT=enforce`` (``scripts/test.sh --quick`` sets it) a test that starts one without its
marker fails, naming the marker it needs; with ``=record:FILE`` every test's kinds are written to FILE (JSON).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.process_kinds import KINDS, kind_of

if TYPE_CHECKING:
    from reference.browser import SyncBrowserProcess

# The replay fixture, as a project that wants it adds it (the kit registers no fixture in a project's own runs).
pytest_plugins = ["pytester", "conformance.replay_fixture"]

_AUDIT = os.environ.get("DRIVERKIT_PROCESS_AUDIT", "")
_current: dict[str, set[str]] = {}
_lock = threading.Lock()
_recorded: dict[str, list[str]] = {}


def _audit(event: str, arguments: tuple[object, ...]) -> None:
    if event != "subprocess.Popen" or not _current:
        return
    kind = kind_of(arguments[0], arguments[1])
    if kind is not None:
        with _lock:
            for started in _current.values():
                started.add(kind)


if _AUDIT:
    sys.addaudithook(_audit)


_STARTED = pytest.StashKey[set[str]]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    # The whole protocol, so processes that fixtures of any scope start for this test are its own.
    if not _AUDIT:
        yield
        return
    started = item.stash[_STARTED] = set()
    with _lock:
        _current[item.nodeid] = started
    try:
        yield
    finally:
        with _lock:
            _current.pop(item.nodeid, None)
        if _AUDIT.startswith("record:"):
            _recorded[item.nodeid] = sorted(started)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    if _AUDIT != "enforce" or call.when != "teardown":
        return
    declared = {kind for kind in KINDS if item.get_closest_marker(kind)}
    missing = sorted(item.stash.get(_STARTED, set()) - declared)
    if missing:
        report = outcome.get_result()
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} starts {', '.join(missing)} processes without the marker(s) {', '.join(missing)}: "
            "mark it (pytest.mark.<kind>) so scripts/test.sh --quick leaves it out"
        )


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _AUDIT.startswith("record:") and _recorded:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        target = Path(_AUDIT.removeprefix("record:"))
        target.mkdir(parents=True, exist_ok=True)
        (target / f"{worker}.json").write_text(json.dumps(_recorded, indent=1), encoding="utf-8")


# One Chromium per test module, for the tests that drive pages themselves. Module scope, not session: while a sync
# Playwright runs, asyncio sees a running loop in this thread, and asyncio.run in any later test of the same xdist
# worker (the async toolset checks, say) would fail.
@pytest.fixture(scope="module")
def browser_process() -> Iterator[SyncBrowserProcess]:
    from reference.browser import SyncBrowserProcess  # imported here: only the tests that ask pay for Playwright

    process = SyncBrowserProcess.start()
    try:
        yield process
    finally:
        process.close()
