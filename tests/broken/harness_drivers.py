"""Drivers that misbehave towards the harness rather than the contract: they hang, crash, leave tasks behind or
return enormous text. Each wraps the reference driver and changes one thing;
``tests/conformance/harness/test_resilience.py`` runs the kit on them in a child pytest and reads the certificate
it leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

from reference.browser import async_factory, sync_factory
from tests.broken.environment_view import EnvironmentView

FOREVER = 3600.0
HUGE = 10 * 1024 * 1024
# Set by the test: a file the driver creates when the call the test waits for has started.
MARKER_VARIABLE = "DRIVERKIT_TEST_MARKER"

# Counts calls per process: the first factory call of a run is the harness's probe.
_factory_calls = itertools.count()
_cleanups = itertools.count()


def _with(env: Any, **members: Callable[..., Any]) -> Iterator[Any]:
    made = sync_factory(env)
    driver = next(made)
    for name, method in members.items():
        setattr(driver, name, method)
    try:
        yield driver
    finally:
        made.close()


def _mark() -> None:
    marker = os.environ.get(MARKER_VARIABLE)
    if marker:
        Path(marker).write_text("started", encoding="utf-8")


def _hang(arguments: Any, *, cancelled: Any = None) -> None:
    _mark()
    time.sleep(FOREVER)


def hanging_factory(env: Any) -> Any:
    """Never returns a driver."""
    time.sleep(FOREVER)


class StateOnly:
    """A driver with nothing but state(), for runs that never get as far as a browser."""

    def state(self) -> dict[str, Any]:
        return {"tabs": [{"id": "tab-1", "title": "", "url": "about:blank", "active": True}]}


def state_only(env: Any) -> StateOnly:
    return StateOnly()


def route_not_reported(env: Any) -> Iterator[Any]:
    """The reference driver, never offered ``report_browser_route``: it shows its pages, and says nothing of how it
    reached its browser."""
    yield from sync_factory(EnvironmentView(env, report_browser_route=None))


def hanging_factory_after_probe(env: Any) -> StateOnly:
    """Works at the start of the run, then hangs: a flaky start, not the checks' business."""
    if next(_factory_calls) > 0:
        time.sleep(FOREVER)
    return StateOnly()


def hanging_factory_with_a_browser(env: Any) -> StateOnly:
    """After the probe, starts a process of its own (a browser, say) and then hangs: the kit abandons the factory,
    and nothing will ever close what it started. The process's command line carries the test's marker path."""
    if next(_factory_calls) > 0:
        marker = os.environ.get(MARKER_VARIABLE, "")
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", marker])
        time.sleep(FOREVER)
    return StateOnly()


def hanging_click(env: Any) -> Iterator[Any]:
    """``click`` never returns."""
    yield from _with(env, click=_hang)


async def async_hanging_click(env: Any) -> AsyncIterator[Any]:
    """The async driver's ``click`` awaits forever."""
    made = async_factory(env)
    driver = await made.__anext__()

    async def click(arguments: Any) -> None:
        await asyncio.sleep(FOREVER)

    driver.click = click
    try:
        yield driver
    finally:
        await made.aclose()


def hanging_cleanup_after_probe(env: Any) -> Iterator[Any]:
    """Closes at the probe, then never finishes closing."""
    first = next(_cleanups) == 0
    yield from _with(env)
    if not first:
        time.sleep(FOREVER)


async def _stubborn() -> None:
    while True:
        try:
            await asyncio.sleep(FOREVER)
        except asyncio.CancelledError:
            continue


async def leftover_task(env: Any) -> AsyncIterator[Any]:
    """Leaves a task on the event loop that shrugs off cancellation."""
    made = async_factory(env)
    driver = await made.__anext__()
    asyncio.get_running_loop().create_task(_stubborn(), name="stubborn-heartbeat")
    try:
        yield driver
    finally:
        await made.aclose()


def raising_generator(env: Any) -> Iterator[Any]:
    """A generator factory that fails before yielding."""
    raise RuntimeError("no browser today")
    yield  # pragma: no cover - makes this a generator


@contextlib.contextmanager
def raising_context_manager(env: Any) -> Iterator[Any]:
    """A context-manager factory whose ``__enter__`` fails."""
    raise RuntimeError("no browser today")
    yield  # pragma: no cover


def broken_click(env: Any) -> Iterator[Any]:
    """``click`` always raises: an ordinary defect, for -x, --lf and --maxfail runs."""

    def click(arguments: Any, *, cancelled: Any = None) -> None:
        raise RuntimeError("click is broken on purpose")

    yield from _with(env, click=click)


def crashing_scroll(env: Any) -> Iterator[Any]:
    """``scroll`` ends the whole process (as a driver that kills its own interpreter would)."""

    def scroll(arguments: Any, *, cancelled: Any = None) -> None:
        os._exit(3)

    yield from _with(env, scroll=scroll)


def huge_output(env: Any) -> Iterator[Any]:
    """Every tab title is 10 MB, and ``click`` raises with a 10 MB message."""
    made = sync_factory(env)
    driver = next(made)
    state = driver.state

    def huge_state() -> Any:
        report = state()
        for tab in report.get("tabs", []):
            tab["title"] = "T" * HUGE
        return report

    def click(arguments: Any, *, cancelled: Any = None) -> None:
        raise RuntimeError("E" * HUGE)

    driver.state = huge_state
    driver.click = click
    try:
        yield driver
    finally:
        made.close()


def browser_killer(env: Any) -> Iterator[Any]:
    """``scroll`` closes the browser every driver of the run shares, so later drivers cannot be made."""
    made = sync_factory(env)
    driver = next(made)

    def scroll(arguments: Any, *, cancelled: Any = None) -> None:
        driver._session.context.browser.close()

    driver.scroll = scroll
    try:
        yield driver
    finally:
        with contextlib.suppress(Exception):
            made.close()


def raising_computer_factory(env: Any) -> Any:
    """A computer driver factory that fails from the start."""
    raise RuntimeError("no desktop driver today")


def crashing_computer_click(env: Any) -> Iterator[Any]:
    """The reference computer driver whose ``click`` ends the whole process, mid-check."""
    from reference.computer import XvfbComputerDriver

    class CrashingClick(XvfbComputerDriver):
        def click(self, action: Any, *, cancelled: Any = None) -> None:
            os._exit(3)

    with CrashingClick(env.display) as driver:
        yield driver


class _StallingGuardDriver:
    """A minimal sync Playwright driver whose network guard is a ``context.route`` handler.

    Sync Playwright runs route handlers only while its thread is inside a Playwright call, so between the driver's
    calls every request its pages make waits: the start page loads (the factory is inside goto), and its reports
    reach the kit only when the driver is called again.
    """

    def __init__(self, env: Any) -> None:
        from playwright.sync_api import sync_playwright

        from reference.browser._launch import launch_options

        self._home = tempfile.TemporaryDirectory(prefix="driverkit-stall-")
        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(**launch_options(self._home.name))
        self._context = self._browser.new_context()
        allowed = tuple(env.allowed_origins)
        self._context.route(
            "**/*", lambda route: route.continue_() if route.request.url.startswith(allowed) else route.abort()
        )
        self._page = self._context.new_page()
        self._page.goto(env.start_url)

    def state(self) -> dict[str, Any]:
        return {"tabs": [{"id": "t1", "title": self._page.title(), "url": self._page.url, "active": True}]}

    def close(self) -> None:
        self._context.close()
        self._browser.close()
        self._playwright.stop()
        self._home.cleanup()


def stalling_guard(env: Any) -> Iterator[Any]:
    driver = _StallingGuardDriver(env)
    try:
        yield driver
    finally:
        driver.close()
