"""What a computer driver factory and a computer check get: a desktop showing the kit's input recorder page.

The desktop (:mod:`conformance.harness.desktops`) shows ``fixtures/pages/desktop/input-recorder.html``, which
reports every pointer, wheel, key and input event to the desktop's page server; checks drive the desktop only
through the driver under test and compare what the page saw with what the action asked for.

The page is served over loopback HTTP rather than file:// because a file:// page cannot send its events
anywhere: HTTP lets the same page and the same event file work on this host and inside the network-less
container (where the server runs on the container's own loopback).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from conformance import resources
from conformance.assertions import EnvironmentProblem
from conformance.harness.errors import describe_error

if TYPE_CHECKING:
    from conformance.harness.desktops import Desktop

# The desktops need python-xlib (the kit's [desktop] extra), so they are imported when a desktop starts, not when
# the plugin registers the fixtures of a run that certifies only browser drivers.

RECORDER_PAGE = "input-recorder.html"
# Time the page gets to report an action's events before a check concludes they are missing. Generous: on a
# loaded two-core machine Chromium has been seen to fall seconds behind its input.
EVENT_TIMEOUT_SECONDS = 15.0
# A barrier the page has not reported within this long after it started is sent again, but only while waiting
# for the page to take its first input: Chromium drops input that comes before the page's first paint, which
# on a loaded machine can follow the load event.
FIRST_INPUT_RETRY_SECONDS = 1.0
# The barrier waits as long as the page keeps reporting older input (it is behind, not stuck), but not forever:
# a burst of typing on a loaded machine has taken Chromium well over EVENT_TIMEOUT_SECONDS to work through.
BARRIER_CAP_SECONDS = 120.0
# After the expected events arrive, late stragglers (a second wheel event, a trailing click) get this long.
SETTLE_SECONDS = 0.15
# Once the page has handled all input sent before a check's action returned (the barrier arrived), an expected event
# it has not reported is missing, not late: it gets this long more, not the rest of EVENT_TIMEOUT_SECONDS. The
# margin is for Chromium's continuous input (pointer moves, wheel), which it dispatches aligned to animation
# frames (about 17 ms apart) and could in principle hand over a frame after the barrier's move.
MISSING_AFTER_BARRIER_SECONDS = 1.0

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
        # The page's record of the last barrier's own pointer move: where the pointer was and what was held (buttons,
        # modifiers) once the page had handled all input sent before it. Exploration judges held input by it.
        self.last_barrier: Event | None = None

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
        The harness sends its own one-pixel pointer motion and waits for the page to report it: input is handled
        in order, so everything sent before has been handled too. While the page keeps reporting older input it
        is only behind, so the wait goes on (up to BARRIER_CAP_SECONDS); a page that reports nothing at all for
        EVENT_TIMEOUT_SECONDS has stopped.
        """
        return self._settle(EVENT_TIMEOUT_SECONDS)

    def wait_until_ready(self, deadline: float) -> None:
        """Wait until the page has loaded and handles input (a barrier arrives): only then may a check drive it."""
        while not any(event.get("type") == "ready" for event in self.events()):
            if time.monotonic() > deadline:
                raise DesktopUnavailableError(f"{RECORDER_PAGE} did not load on the desktop at {self.page_url}")
            time.sleep(0.05)
        while True:
            try:
                self._settle(FIRST_INPUT_RETRY_SECONDS)
                return
            except DesktopUnavailableError as error:
                if time.monotonic() > deadline:
                    raise DesktopUnavailableError(f"{RECORDER_PAGE} loaded but never took input: {error}") from None

    def _settle(self, silence: float) -> int:
        barrier = self._input_barrier()
        last_seen = max((int(event.get("seq", 0)) for event in self.events()), default=0)
        nudge = barrier.send()
        started = time.monotonic()
        progress_at, newest = started, last_seen
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
                self.last_barrier = arrived[-1]
                return max(int(item.get("seq", 0)) for item in events)
            now = time.monotonic()
            latest = max((int(event.get("seq", 0)) for event in events), default=0)
            if latest > newest:
                progress_at, newest = now, latest
            if now - progress_at > silence or now - started > BARRIER_CAP_SECONDS:
                raise DesktopUnavailableError(_barrier_missing(events, last_seen, nudge, now - started))
            time.sleep(0.01)

    def release_held_input(self) -> list[str]:
        """Release every pointer button and key the X server holds down, whoever pressed it; what was released.

        A driver that leaves a button or key pressed would otherwise press it for every later check on this desktop
        (a fresh driver cannot know what an earlier one left): exploration, which looks for such drivers, calls this
        after each sequence so its finding stays its own.
        """
        return self._input_barrier().release_everything()

    def close(self) -> None:
        if self._barrier is not None:
            self._barrier.close()
            self._barrier = None

    def wait_for(
        self, mark: int, done: Callable[[list[Event]], bool], timeout: float = EVENT_TIMEOUT_SECONDS
    ) -> list[Event]:
        """Events after ``mark`` once ``done`` holds for them (plus a short settle), or whatever came by timeout.

        Called after the check's action returned. If ``done`` does not hold yet, a barrier asks the page to handle
        all input sent so far: a correct driver's events then arrive with it, and a driver whose events never
        come (a double click sent as one click) is known to lack them at once, not after the whole timeout. The
        wait then ends MISSING_AFTER_BARRIER_SECONDS later at most. A page that stops reporting input leaves the
        barrier unanswered, and the timeout is waited out as before, so what the page missed is still judged as
        the driver's, never turned into "not checked".
        """
        deadline = time.monotonic() + timeout
        acknowledged = False
        while True:
            events = self.events_since(mark)
            if done(events):
                time.sleep(SETTLE_SECONDS)
                return self.events_since(mark)
            if time.monotonic() > deadline:
                return events
            if not acknowledged:
                acknowledged = True
                with contextlib.suppress(DesktopUnavailableError):
                    self.settle()
                    deadline = min(deadline, time.monotonic() + MISSING_AFTER_BARRIER_SECONDS)
                continue
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
        return inserted_text(self.events_since(mark))


def inserted_text(events: Iterable[Event], *, name_other_edits: bool = False) -> str:
    """The text the page reported inserted by ``events`` (line breaks included). Other edits (a deletion, a paste)
    are left out, or named as ``<inputType>`` with ``name_other_edits``, so that a comparison shows them."""
    pieces = []
    for event in events:
        if event.get("type") != "input":
            continue
        if event.get("inputType") == "insertText":
            pieces.append(str(event.get("data") or ""))
        elif event.get("inputType") in ("insertLineBreak", "insertParagraph"):
            pieces.append("\n")
        elif name_other_edits:
            pieces.append(f"<{event.get('inputType')}>")
    return "".join(pieces)


def _barrier_missing(events: list[Event], last_seen: int, nudge: tuple[int, int], waited: float) -> str:
    """Why the barrier failed, told apart: a page that reported nothing more, or one that fell too far behind."""
    later = [event for event in events if int(event.get("seq", 0)) > last_seen]
    if not later:
        return (
            f"the fixture page stopped reporting input: nothing arrived in {waited:.0f} s after the harness moved "
            f"the pointer to {nudge} (the barrier never arrived)"
        )
    last = later[-1]
    return (
        f"the fixture page fell too far behind its input: in {waited:.0f} s it reported {len(later)} more events, "
        f"the last a {last.get('type')!r}, but not the harness's pointer move to {nudge} (the barrier never arrived)"
    )


class _InputBarrier:
    """The harness's own XTEST connection, used only to nudge the pointer by one pixel.

    Chromium reports a button event that it handles late at the pointer's position when it handles it, not
    where the button was pressed; a barrier that moved the pointer far would corrupt the events it waits for.
    A one-pixel nudge stays inside every check's tolerance. (Nudging there and back in one go does not work:
    Chromium merges queued motions, and the page would see no movement at all.)
    """

    def __init__(self, display_name: str, screen_size: tuple[int, int]) -> None:
        from Xlib.ext import xtest

        from conformance.harness.desktops.x11_connection import open_display

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

    def release_everything(self) -> list[str]:
        """Release the buttons the pointer's state reports pressed and the keys the keymap reports down."""
        from Xlib import X

        root = self._display.screen().root
        mask = int(root.query_pointer().mask)
        released = []
        for button, button_mask in enumerate((X.Button1Mask, X.Button2Mask, X.Button3Mask), 1):
            if mask & button_mask:
                self._xtest.fake_input(self._display, X.ButtonRelease, button)
                released.append(f"button {button}")
        keymap = self._display.query_keymap()
        for index, bits in enumerate(keymap):
            for bit in range(8):
                if int(bits) & (1 << bit):
                    keycode = index * 8 + bit
                    self._xtest.fake_input(self._display, X.KeyRelease, keycode)
                    released.append(f"keycode {keycode}")
        self._display.sync()
        return released

    def close(self) -> None:
        self._display.close()


def sweep_abandoned_desktops() -> list[str]:
    """Remove desktop containers whose owning process is gone (a worker that crashed); never raises.

    Called by the process that ran no desktop itself (the xdist controller) when the run ends, so a worker
    killed mid-run leaves no container behind.
    """
    try:
        import docker

        from conformance.harness.desktops.container_owner import sweep

        client = docker.from_env()
    except Exception:
        return []  # no SDK or no engine: nothing of ours can be running there
    try:
        return sweep(client)
    except Exception:
        return []
    finally:
        client.close()


def _desktop(kind: str, size: tuple[int, int]) -> Desktop:
    from conformance.harness.desktops import DesktopSettings, DockerDesktop, LocalDesktop

    settings = DesktopSettings(
        width=size[0], height=size[1], site_dir=resources.pages("desktop"), start_path=RECORDER_PAGE
    )
    if kind == "docker":
        return DockerDesktop(settings)
    if kind == "local":
        return LocalDesktop(settings)
    raise ValueError(f"--desktop={kind!r}: expected 'local' or 'docker'")


@contextlib.contextmanager
def desktop_environment(kind: str, size: tuple[int, int]) -> Iterator[ComputerEnvironment]:
    """A started ``kind`` desktop (``local`` or ``docker``) of ``size`` showing the recorder page, stopped after.

    Whatever keeps the desktop or its page from coming up raises :class:`DesktopUnavailableError`: the driver is
    not to blame, so the checks are "not checked".
    """
    try:
        desktop = _desktop(kind, size)
        desktop.__enter__()
    except Exception as error:
        raise DesktopUnavailableError(
            f"the {size[0]}x{size[1]} desktop did not start: {describe_error(error)}"
        ) from None
    with contextlib.ExitStack() as stack:
        stack.push(desktop)
        environment = ComputerEnvironment(desktop)
        stack.callback(environment.close)
        environment.wait_until_ready(time.monotonic() + desktop.settings.startup_timeout)
        yield environment
