"""One explored desktop session: a computer driver from the harness, the desktop model, and the page's record.

Every action goes through :meth:`ComputerSubject.call`, so the SDK's computer toolset stands between the kit and the
driver as in every computer check, and each step makes exactly one such call: the evidence of a replayed sequence
lists one action per numbered step. The screenshot the session starts from (to learn the screenshot's coordinate
space) is read from the driver directly, as a browser session reads its first state, and is not a step.

After each action the harness's barrier (:meth:`ComputerEnvironment.settle`) makes the page handle everything sent
before it; the action's events are those recorded between the previous barrier and this one, and the page's record
of the barrier's own pointer move says what was held and where the pointer was.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from conformance.contracts.computer._support import Shot, free_area_point, placed_shot
from conformance.harness.computer import ComputerHarness
from conformance.harness.computer_environment import (
    MISSING_AFTER_BARRIER_SECONDS,
    ComputerEnvironment,
    DesktopUnavailableError,
    Event,
)
from conformance.harness.computer_subject import ActionOutcome, ComputerAction, ComputerSubject

from .computer_model import COLUMNS, GRID, ROWS, DesktopModel

# How long an action's events get to arrive before the harness's barrier is sent anyway (a driver whose events never
# come is then judged at the barrier, as the example checks judge it).
BEFORE_BARRIER_SECONDS = 0.5


class ExploredDesktop:
    """A fresh computer driver (from the harness, like any check's) explored one action at a time."""

    def __init__(self, subject: ComputerSubject) -> None:
        self.subject = subject
        self.model: DesktopModel | None = None
        self.shot: Shot | None = None
        self._mark = 0

    @property
    def env(self) -> ComputerEnvironment:
        return self.subject.env

    @property
    def desktop(self) -> DesktopModel:
        assert self.model is not None, "start() first"
        return self.model

    def start(self) -> None:
        """Learn where the driver's screenshots show the screen, and start the model from rest.

        A driver whose screenshots the kit cannot place is not explored: the check says why, as the example checks
        do (not implemented, or unverified for a cropped screenshot without the page's marks).
        """
        self.shot = placed_shot(self.subject.call_direct("screenshot"), self.env)
        points = {name: free_area_point(self.env, COLUMNS[name[0]], ROWS[name[1:]]) for name in GRID}
        self.model = DesktopModel(points, self.shot.tolerance)
        self._mark = self.env.mark()

    def to_shot(self, name: str) -> tuple[int, int]:
        """The grid point ``name`` in the screenshot's coordinates, as an action names it."""
        assert self.shot is not None, "start() first"
        return self.shot.to_shot(*self.desktop.point(name))

    def act(self, action: ComputerAction) -> ActionOutcome:
        """The step's one action, through the SDK's computer toolset."""
        return self.subject.call(action)

    def record(self, done: Callable[[list[Event]], bool] = lambda events: True) -> tuple[list[Event], Event]:
        """The events the action caused and the page's record of the barrier after it.

        The barrier goes out once the page has reported what ``done`` waits for (or after a short while): the
        barrier moves the pointer from where it finds it, and sent into a drag the page has not handled yet, it has
        been seen to land among the drag's own input on a loaded machine. Pointer moves and wheel events are handed
        to the page aligned to animation frames and may follow the barrier's move by a frame: while ``done`` does
        not hold for the events yet, they get a second more, as the example checks give them.
        """
        before = time.monotonic() + BEFORE_BARRIER_SECONDS
        while not done(self.env.events_since(self._mark)) and time.monotonic() < before:
            time.sleep(0.01)
        self.env.settle()
        barrier = self.env.last_barrier
        if barrier is None:
            raise DesktopUnavailableError("the harness's barrier arrived, but the page's record of it did not")
        events = self.env.events_since(self._mark)
        deadline = time.monotonic() + MISSING_AFTER_BARRIER_SECONDS
        while not done(events) and time.monotonic() < deadline:
            time.sleep(0.02)
            events = self.env.events_since(self._mark)
        self._mark = max([int(barrier.get("seq", 0)), *(int(event.get("seq", 0)) for event in events)])
        return events, barrier


def desktop_sessions_from(
    harness: ComputerHarness, environment: ComputerEnvironment, note: Callable[[str], None]
) -> Callable[[], AbstractContextManager[ExploredDesktop]]:
    """A maker of fresh, started sessions, each a new driver from the harness on the run's desktop.

    Whatever a sequence's driver left pressed is released when the sequence ends, and before the next one starts:
    a driver that leaves a button down would otherwise press it for every later check on this desktop.
    """

    @contextmanager
    def fresh() -> Iterator[ExploredDesktop]:
        environment.release_held_input()
        try:
            with harness.subject(environment, note) as subject:
                session = ExploredDesktop(subject)
                session.start()
                yield session
        finally:
            environment.release_held_input()

    return fresh
