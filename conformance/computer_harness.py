"""Pytest fixtures for the computer contract suite (conformance/contracts/computer/check_*.py).

The suite starts one desktop per test session (per xdist worker) that shows
``fixtures/pages/desktop/input-recorder.html``. That page reports every pointer, wheel, key and input event to
the desktop's page server, which appends them to a file; checks drive the desktop only through the driver under
test and compare what the page saw with what the action asked for.

The page is served over loopback HTTP rather than file:// because a file:// page cannot send its events
anywhere: HTTP lets the same page and the same event file work on this host and inside the network-less
container (where the server runs on the container's own loopback).

The kit's plugin owns the options and registers this module when ``--computer-driver=module:factory`` is given:
the factory is called with a :class:`ComputerEnvironment` and may return anything the browser factory protocol
accepts (the driver, a context manager, a generator, their async forms, an awaitable); ``--desktop=local|docker``
picks where the desktop runs. Async drivers run on one harness event loop for the whole session.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from conformance import resources, software
from conformance.assertions import EnvironmentProblem
from conformance.driver import (
    DEFAULT_DRIVER_TIMEOUT,
    DriverSetupError,
    DriverTimeout,
    HarnessLoop,
    bounded,
    close_driver,
    describe_error,
    open_driver,
)
from conformance.fixtures import NOTE_PROPERTY, SOFTWARE_PROPERTY
from conformance.loading import SpecError, load_callable
from reference.desktop import Desktop, DesktopSettings, DockerDesktop, LocalDesktop
from reference.desktop.settings import DEFAULT_SCREEN, parse_screen_size

RECORDER_PAGE = "input-recorder.html"
# Time the page gets to report an action's events before a check concludes they are missing. Generous: on a
# loaded two-core machine Chromium has been seen to fall seconds behind its input.
EVENT_TIMEOUT_SECONDS = 15.0
# After the expected events arrive, late stragglers (a second wheel event, a trailing click) get this long.
SETTLE_SECONDS = 0.15

Event = dict[str, Any]


class DesktopUnavailableError(EnvironmentProblem):
    """The desktop or the page did not come up; the check cannot say anything about the driver ("not checked")."""


@dataclass(frozen=True)
class Target:
    """The red square the page drew, in page (= screen) pixels."""

    left: float
    top: float
    width: float
    height: float


class ComputerEnvironment:
    """What a driver factory and the checks get: the desktop's display, size, page and recorded events."""

    def __init__(self, desktop: Desktop) -> None:
        self.desktop = desktop
        self._barrier: _InputBarrier | None = None

    @property
    def display(self) -> str:
        return self.desktop.display

    @property
    def screen_size(self) -> tuple[int, int]:
        return self.desktop.screen_size

    @property
    def page_url(self) -> str:
        return self.desktop.page_url

    def events(self) -> list[Event]:
        """Every event the page reported so far, in the order the page saw them."""
        return sorted(self.desktop.read_events(), key=lambda event: int(event.get("seq", 0)))

    def mark(self) -> int:
        """A position in the event stream after all input so far; :meth:`events_since` returns what follows."""
        return self.settle()

    def events_since(self, mark: int) -> list[Event]:
        barrier = self._input_barrier()
        return [event for event in self.events() if int(event.get("seq", 0)) > mark and not barrier.is_sentinel(event)]

    def _input_barrier(self) -> _InputBarrier:
        if self._barrier is None:
            self._barrier = _InputBarrier(self.display, self.screen_size)
        return self._barrier

    def settle(self) -> int:
        """Wait until the page has handled all input sent so far; return the event position after it.

        Chromium can fall behind its input, so an event that shows up late would be blamed on the next check.
        The harness sends its own pointer motion (to a corner no check uses) and waits for the page to report
        it: input is handled in order, so everything sent before has been handled too.
        """
        barrier = self._input_barrier()
        last_seen = max((int(event.get("seq", 0)) for event in self.events()), default=0)
        nudge = barrier.send()
        deadline = time.monotonic() + EVENT_TIMEOUT_SECONDS
        while True:
            events = self.events()
            arrived = [
                event
                for event in events
                if int(event.get("seq", 0)) > last_seen
                and event.get("type") == "pointermove"
                and (event["x"], event["y"]) == nudge
            ]
            if arrived:
                barrier.sentinels.update(int(event["seq"]) for event in arrived)
                return max(int(item.get("seq", 0)) for item in events)
            if time.monotonic() > deadline:
                raise DesktopUnavailableError("the fixture page stopped reporting input (the barrier never arrived)")
            time.sleep(0.01)

    def close(self) -> None:
        if self._barrier is not None:
            self._barrier.close()
            self._barrier = None

    def wait_for(
        self, mark: int, done: Callable[[list[Event]], bool], timeout: float = EVENT_TIMEOUT_SECONDS
    ) -> list[Event]:
        """Events after ``mark`` once ``done`` holds for them (plus a short settle), or whatever came by timeout."""
        deadline = time.monotonic() + timeout
        while True:
            events = self.events_since(mark)
            if done(events):
                time.sleep(SETTLE_SECONDS)
                return self.events_since(mark)
            if time.monotonic() > deadline:
                return events
            time.sleep(0.02)

    def quiet(self, mark: int) -> list[Event]:
        """Events after ``mark`` once the page has handled all input sent so far: for checks expecting none."""
        self.settle()
        return self.events_since(mark)

    def ready_event(self) -> Event:
        ready = [event for event in self.events() if event.get("type") == "ready"]
        if not ready:
            raise DesktopUnavailableError("the fixture page has not reported that it loaded")
        return ready[-1]

    def target(self) -> Target:
        ready = self.ready_event()
        return Target(ready["targetLeft"], ready["targetTop"], ready["targetWidth"], ready["targetHeight"])

    def typed_since(self, mark: int) -> str:
        """The text the page saw inserted after ``mark`` (line breaks included), wherever the caret was."""
        pieces = []
        for event in self.events_since(mark):
            if event.get("type") != "input":
                continue
            if event.get("inputType") == "insertText":
                pieces.append(str(event.get("data") or ""))
            elif event.get("inputType") in ("insertLineBreak", "insertParagraph"):
                pieces.append("\n")
        return "".join(pieces)

    def typed_value(self, mark: int | None = None) -> str:
        """The typing area's value as of ``mark`` (now when ``None``), from the last input event reported."""
        values = [
            event["value"]
            for event in self.events()
            if event.get("type") == "input" and (mark is None or int(event["seq"]) <= mark)
        ]
        return str(values[-1]) if values else ""


class _InputBarrier:
    """The harness's own XTEST connection, used only to nudge the pointer by one pixel.

    Chromium reports a button event that it handles late at the pointer's position when it handles it, not
    where the button was pressed; a barrier that moved the pointer far would corrupt the events it waits for.
    A one-pixel nudge stays inside every check's tolerance. (Nudging there and back in one go does not work:
    Chromium merges queued motions, and the page would see no movement at all.)
    """

    def __init__(self, display_name: str, screen_size: tuple[int, int]) -> None:
        from Xlib.ext import xtest

        from reference.computer.x11_connection import open_display

        self._xtest = xtest
        self._display = open_display(display_name)
        self._width = screen_size[0]
        self.sentinels: set[int] = set()

    def is_sentinel(self, event: Event) -> bool:
        return int(event.get("seq", 0)) in self.sentinels

    def send(self) -> tuple[int, int]:
        """Nudge the pointer one pixel sideways (back and forth on successive calls); return where it went."""
        from Xlib import X

        root = self._display.screen().root
        pointer = root.query_pointer()
        x, y = int(pointer.root_x), int(pointer.root_y)
        nudge = (x - 1 if x % 2 or x + 1 >= self._width else x + 1, y)
        self._xtest.fake_input(self._display, X.MotionNotify, x=nudge[0], y=nudge[1], root=root)
        self._display.sync()
        return nudge

    def close(self) -> None:
        self._display.close()


def screen_size(config: pytest.Config) -> tuple[int, int]:
    """``--screen-size`` (WIDTHxHEIGHT), 1280x800 when not given."""
    text = config.getoption("--screen-size", None)
    if not text:
        return DEFAULT_SCREEN
    try:
        return parse_screen_size(str(text))
    except ValueError as error:
        raise pytest.UsageError(f"--screen-size={text}: {error}") from None


def _start_desktop(kind: str, size: tuple[int, int]) -> Desktop:
    settings = DesktopSettings(
        width=size[0], height=size[1], site_dir=resources.pages("desktop"), start_path=RECORDER_PAGE
    )
    if kind == "docker":
        return DockerDesktop(settings)
    if kind == "local":
        return LocalDesktop(settings)
    raise pytest.UsageError(f"--desktop={kind!r}: expected 'local' or 'docker'")


@pytest.fixture(scope="session")
def computer_environment(pytestconfig: pytest.Config) -> Iterator[ComputerEnvironment]:
    desktop = _start_desktop(str(pytestconfig.getoption("--desktop")), screen_size(pytestconfig))
    try:
        desktop.__enter__()
    except Exception as error:  # whatever kept the desktop from starting, the driver is not to blame
        raise DesktopUnavailableError(
            f"the {desktop.settings.screen} desktop did not start: {describe_error(error)}"
        ) from None
    with contextlib.ExitStack() as stack:
        stack.push(desktop)
        environment = ComputerEnvironment(desktop)
        deadline = time.monotonic() + desktop.settings.startup_timeout
        while not any(event.get("type") == "ready" for event in environment.events()):
            if time.monotonic() > deadline:
                raise DesktopUnavailableError(f"{RECORDER_PAGE} did not load on the desktop at {desktop.page_url}")
            time.sleep(0.05)
        try:
            yield environment
        finally:
            environment.close()


@pytest.fixture(scope="session")
def computer_factory(pytestconfig: pytest.Config) -> Callable[..., Any]:
    spec = pytestconfig.getoption("--computer-driver")
    if not spec:
        pytest.skip("no --computer-driver=module:factory given")
    try:
        return load_callable(str(spec), "--computer-driver")
    except SpecError as error:
        raise pytest.UsageError(str(error)) from None


# One harness loop (an event loop thread and a worker thread for sync drivers) for the whole session, so an async
# driver's loop-bound resources survive between calls; every call into the driver runs under its deadline.
_loop: HarnessLoop | None = None
_timeouts = {"driver": DEFAULT_DRIVER_TIMEOUT, "factory": 2 * DEFAULT_DRIVER_TIMEOUT}
# Whether the factory has made a driver in this process: until it has, a factory failure is a usage error.
_factory_worked = False


def harness_loop() -> HarnessLoop:
    global _loop
    if _loop is None:
        _loop = HarnessLoop(_timeouts["driver"])
    return _loop


@pytest.fixture(scope="session", autouse=True)
def _close_harness_loop(pytestconfig: pytest.Config) -> Iterator[None]:
    from conformance.plugin import driver_timeout, factory_timeout

    _timeouts.update(driver=driver_timeout(pytestconfig), factory=factory_timeout(pytestconfig))
    yield
    global _loop
    if _loop is not None:
        for task in _loop.close():
            sys.stderr.write(f"driverkit: still running when the run ended: {task}\n")
        _loop = None


@pytest.fixture
def computer_driver(
    request: pytest.FixtureRequest, computer_factory: Callable[..., Any], computer_environment: ComputerEnvironment
) -> Iterator[Any]:
    global _factory_worked
    loop, seconds = harness_loop(), _timeouts["factory"]
    try:
        driver, cleanup = loop.run(
            lambda: open_driver(computer_factory, computer_environment, loop, seconds),
            what="the driver factory",
            timeout=seconds,
        )
    except (DriverSetupError, DriverTimeout) as error:
        if not _factory_worked:
            spec = request.config.getoption("--computer-driver")
            pytest.exit(f"--computer-driver={spec}: {bounded(str(error))}", returncode=pytest.ExitCode.USAGE_ERROR)
        raise EnvironmentProblem(f"{bounded(str(error))}; it worked earlier in the run") from None
    if not _factory_worked:
        found = loop.run(lambda: software.describe(driver), what="reading the driver's versions")
        request.node.user_properties.append((SOFTWARE_PROPERTY, json.dumps(found)))
    _factory_worked = True
    generation = loop.generation
    try:
        yield driver
    finally:
        problem = close_driver(loop, cleanup, generation)
        if problem:
            request.node.user_properties.append((NOTE_PROPERTY, f"{request.node.nodeid}: {problem}"))


def is_async_driver(driver: Any) -> bool:
    return inspect.iscoroutinefunction(getattr(driver, "click", None))


def on_driver(driver: Any, function: Callable[[], Any], what: str) -> Any:
    """``function()`` where the driver's code runs (the loop for async drivers, the worker thread for sync ones),
    under the driver deadline."""
    if is_async_driver(driver):
        return harness_loop().run_async(function, what=what)
    return harness_loop().run(function, what=what)


def call(driver: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """Call one driver method, sync or async alike, and return its result (DriverTimeout past the deadline)."""
    return on_driver(driver, lambda: getattr(driver, method)(*args, **kwargs), method)


def accepts_cancelled(driver: Any, method: str) -> bool:
    try:
        parameters = inspect.signature(getattr(driver, method)).parameters
    except (TypeError, ValueError):
        return False
    return "cancelled" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


__all__ = [
    "ComputerEnvironment",
    "DesktopUnavailableError",
    "Target",
    "accepts_cancelled",
    "call",
    "is_async_driver",
    "on_driver",
    "open_driver",
]
