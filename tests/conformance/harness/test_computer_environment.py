"""The computer environment's barrier and event log: its waiting rule on a scripted page, and on a real local
desktop showing the input recorder page."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, cast

import pytest

from conformance.harness import computer_environment
from conformance.harness.computer_environment import ComputerEnvironment, DesktopUnavailableError, desktop_environment
from conformance.harness.desktops.x11_connection import open_display
from tests.desktops import needs_x

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop]

NUDGE = (11, 7)


class _ScriptedPage:
    """A desktop whose page reports one backlog event per read, then (optionally) the barrier's pointer move.

    The first ``dropped`` nudges are ignored, as Chromium ignores input that comes before a page's first paint.
    """

    page_url = "http://127.0.0.1:9/input-recorder.html"

    def __init__(self, backlog: int, then_barrier: bool, dropped: int = 0) -> None:
        self.backlog, self.then_barrier, self.dropped = backlog, then_barrier, dropped
        self.reported: list[dict[str, Any]] = [{"seq": 1, "type": "ready"}]
        self.nudges = 0

    @property
    def nudged(self) -> bool:
        return self.nudges > self.dropped

    def read_events(self) -> list[dict[str, Any]]:
        if self.nudged:
            seq = len(self.reported) + 1
            if self.backlog:
                self.backlog -= 1
                self.reported.append({"seq": seq, "type": "keydown", "key": "a"})
            elif self.then_barrier:
                self.reported.append({"seq": seq, "type": "pointermove", "x": NUDGE[0], "y": NUDGE[1]})
                self.then_barrier = False
        return list(self.reported)


class _FakeBarrier:
    def __init__(self, page: _ScriptedPage) -> None:
        self.page, self.sentinels = page, set[int]()

    def send(self) -> tuple[int, int]:
        self.page.nudges += 1
        return NUDGE

    def is_sentinel(self, event: dict[str, Any]) -> bool:
        return int(event["seq"]) in self.sentinels


def _environment(page: _ScriptedPage, monkeypatch: pytest.MonkeyPatch) -> ComputerEnvironment:
    # Reads come every 10 ms: a 50 ms silence is "stopped", and the page's backlog lasts well past that.
    monkeypatch.setattr(computer_environment, "EVENT_TIMEOUT_SECONDS", 0.05)
    monkeypatch.setattr(computer_environment, "BARRIER_CAP_SECONDS", 2.0)
    monkeypatch.setattr(computer_environment, "FIRST_INPUT_RETRY_SECONDS", 0.05)
    environment = ComputerEnvironment(cast(Any, page))
    environment._barrier = cast(Any, _FakeBarrier(page))
    return environment


def test_a_page_working_through_a_backlog_is_waited_for_past_the_silence_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page = _ScriptedPage(backlog=30, then_barrier=True)
    environment = _environment(page, monkeypatch)
    started = time.monotonic()
    assert environment.settle() == 32
    assert time.monotonic() - started > 0.05


def test_a_page_that_reports_nothing_more_has_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    environment = _environment(_ScriptedPage(backlog=0, then_barrier=False), monkeypatch)
    with pytest.raises(DesktopUnavailableError, match="stopped reporting input: nothing arrived"):
        environment.settle()


def test_a_page_that_never_catches_up_fails_at_the_cap_and_says_how_far_it_got(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    environment = _environment(_ScriptedPage(backlog=10_000, then_barrier=False), monkeypatch)
    with pytest.raises(DesktopUnavailableError, match=r"fell too far behind .* the last a 'keydown'"):
        environment.settle()


def test_a_page_that_drops_its_first_input_is_ready_once_a_later_barrier_arrives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page = _ScriptedPage(backlog=0, then_barrier=True, dropped=2)
    environment = _environment(page, monkeypatch)
    environment.wait_until_ready(time.monotonic() + 5)
    assert page.nudges == 3


def test_a_page_that_never_takes_input_is_not_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    page = _ScriptedPage(backlog=0, then_barrier=True, dropped=1_000)
    environment = _environment(page, monkeypatch)
    with pytest.raises(DesktopUnavailableError, match="loaded but never took input"):
        environment.wait_until_ready(time.monotonic() + 0.3)


def test_a_page_that_never_loads_is_not_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    page = _ScriptedPage(backlog=0, then_barrier=True)
    page.reported.clear()
    with pytest.raises(DesktopUnavailableError, match="did not load"):
        _environment(page, monkeypatch).wait_until_ready(time.monotonic() + 0.2)


def test_an_expected_event_the_page_lacks_once_it_caught_up_is_missing_after_the_margin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page = _ScriptedPage(backlog=3, then_barrier=True)
    environment = _environment(page, monkeypatch)
    monkeypatch.setattr(computer_environment, "MISSING_AFTER_BARRIER_SECONDS", 0.1)
    started = time.monotonic()
    events = environment.wait_for(1, lambda seen: any(event["type"] == "dblclick" for event in seen), timeout=30)
    assert time.monotonic() - started < 5, "the whole timeout was waited although the barrier had arrived"
    assert [event["type"] for event in events] == ["keydown"] * 3  # what came before the barrier, and not its move
    assert page.nudges == 1


def test_an_expected_event_that_comes_before_the_barrier_ends_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    page = _ScriptedPage(backlog=2, then_barrier=True)
    environment = _environment(page, monkeypatch)
    events = environment.wait_for(1, lambda seen: len(seen) >= 2, timeout=30)
    assert [event["type"] for event in events] == ["keydown", "keydown"]


def test_a_page_that_stops_reporting_is_waited_for_the_whole_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    # No barrier either: the missing event may be the page's fault, so the wait is the old one, and the check
    # still judges the events that came (never "not checked" because the barrier failed).
    environment = _environment(_ScriptedPage(backlog=0, then_barrier=False), monkeypatch)
    started = time.monotonic()
    assert environment.wait_for(1, lambda seen: bool(seen), timeout=0.5) == []
    assert time.monotonic() - started >= 0.5


# Typed in one go, these keys make the page queue far more than 64 KiB of events (every input event carries the
# whole textarea) while its first post is in flight: the size at which a keepalive fetch is refused (issue 17).
BURST = "cancel me " * 40


@pytest.fixture(scope="module")
def desktop() -> Iterator[ComputerEnvironment]:
    with desktop_environment("local", (1024, 640)) as env:
        yield env


@needs_x
def test_the_barrier_arrives_after_a_burst_of_typing_and_every_key_is_reported(desktop: ComputerEnvironment) -> None:
    environment = desktop
    from Xlib import XK, X
    from Xlib.ext import xtest

    display = open_display(environment.display)
    try:
        mark = environment.mark()
        for character in BURST:
            keycode = display.keysym_to_keycode(XK.string_to_keysym("space" if character == " " else character))
            assert keycode, f"the desktop's keymap has no key for {character!r}"
            xtest.fake_input(display, X.KeyPress, keycode)
            xtest.fake_input(display, X.KeyRelease, keycode)
        display.sync()
    finally:
        display.close()
    environment.settle()
    assert environment.typed_since(mark) == BURST
    # The page keeps reporting afterwards: a second barrier arrives too.
    environment.settle()
