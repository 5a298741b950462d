"""The page barrier (conformance.harness.page_barrier): it holds only once every page has reported everything.

The bookkeeping is tested on its own (gaps, goodbyes, pages still starting); the whole loop with Chromium showing
real fixture pages, including a beacon the server receives late, which a quiet window misses (the CI flake on
BR-PTR-008) and the barrier does not.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from conformance.contracts.browser.check_actions import (
    WAIT_PAGE,
    WAIT_PAGE_DELAY_S,
    WAIT_PAGE_FALLBACK_S,
    _earliest_reveal,
)
from conformance.harness import environment, page_barrier
from conformance.harness.environment import Environment
from conformance.harness.fixture_server import EffectStore, FixtureServer
from conformance.harness.page_barrier import BarrierState
from reference.browser import SyncBrowserProcess

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


def _effects(instance: str, *numbers: int) -> list[Mapping[str, Any]]:
    return [{"kind": "click", "instance": instance, "seq": number, "received": time.monotonic()} for number in numbers]


def test_a_connected_page_holds_the_barrier_until_it_acknowledges() -> None:
    state = BarrierState()
    state.connected("a", "forms.html", "main")
    assert state.waiting_for(1, [], time.monotonic()) == ["forms.html (main) has not acknowledged"]
    state.reported("a", "forms.html", "main", {"ack": 1, "last": 0})
    assert state.waiting_for(1, [], time.monotonic()) == []


def test_a_gap_in_the_numbers_is_an_effect_still_in_flight() -> None:
    state = BarrierState()
    state.connected("a", "forms.html", "main")
    state.reported("a", "forms.html", "main", {"ack": 1, "last": 3})
    assert state.waiting_for(1, _effects("a", 1, 3), time.monotonic()) == [
        "forms.html (main) effects [2] still in flight"
    ]
    assert state.waiting_for(1, _effects("a", 1, 2, 3), time.monotonic()) == []


def test_a_page_that_left_is_waited_for_up_to_its_goodbye() -> None:
    state = BarrierState()
    state.connected("a", "tabs-a.html", "main")
    state.reported("a", "tabs-a.html", "main", {"goodbye": True, "last": 2})
    state.disconnected("a")
    assert state.waiting_for(1, _effects("a", 1), time.monotonic()) == [
        "tabs-a.html (main) effects [2] still in flight"
    ]
    assert state.waiting_for(1, _effects("a", 1, 2), time.monotonic()) == []


def test_a_page_that_closed_without_a_goodbye_gets_a_short_grace() -> None:
    state = BarrierState()
    state.connected("a", "tabs-a.html", "main")
    state.disconnected("a")
    now = time.monotonic()
    assert state.waiting_for(1, [], now) == ["tabs-a.html (main) closed without a goodbye"]
    assert state.waiting_for(1, [], now + page_barrier.CLOSE_GRACE_SECONDS) == []


def test_a_served_page_that_has_not_connected_yet_is_waited_for_boundedly() -> None:
    state = BarrierState()
    state.document_served("tabs-b.html", "main")
    now = time.monotonic()
    assert state.waiting_for(1, [], now) == ["tabs-b.html (main) was served but has not connected"]
    state.connected("b", "tabs-b.html", "main")
    state.reported("b", "tabs-b.html", "main", {"ack": 1, "last": 0})
    assert state.waiting_for(1, [], now) == []
    state.document_served("tabs-b.html", "main")  # a second tab with the same page, still starting
    assert state.waiting_for(1, [], now)
    assert state.waiting_for(1, [], now + page_barrier.DOCUMENT_GRACE_SECONDS + 0.1) == []


def test_a_page_without_a_socket_keeps_the_barrier_from_holding() -> None:
    state = BarrierState()
    state.reported("a", "forms.html", "main", {"unreachable": True, "last": 0})
    assert state.waiting_for(1, [], time.monotonic()) == ["forms.html (main) could not open its barrier socket"]


def test_frames_round_trip_through_the_handshake_helpers() -> None:
    # The example key and answer of the WebSocket RFC (6455, section 1.3).
    assert page_barrier.accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    assert page_barrier.text_frame("hi") == b"\x81\x02hi"


# Chromium showing real fixture pages.


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as served:
        yield served


@pytest.fixture
def env(server: FixtureServer) -> Iterator[Environment]:
    tokens = server.session()
    try:
        yield Environment(server, next(tokens))
    finally:
        tokens.close()


@pytest.fixture
def notes() -> list[str]:
    """The notes an environment makes, kept for the test to read."""
    return []


@pytest.fixture
def socketless_env(server: FixtureServer, notes: list[str], monkeypatch: pytest.MonkeyPatch) -> Iterator[Environment]:
    """An environment whose pages cannot open their barrier socket, as behind a proxy that refuses WebSockets (the
    upgrade is answered like a plain request)."""
    monkeypatch.setattr(page_barrier, "accept_key", _refuse_upgrade)
    tokens = server.session()
    try:
        yield Environment(server, next(tokens), note=notes.append)
    finally:
        tokens.close()


@pytest.fixture
def page(browser_process: SyncBrowserProcess) -> Iterator[Any]:
    context = browser_process.browser.new_context()
    try:
        yield context.new_page()
    finally:
        context.close()


class _LateDelivery:
    """Makes the server receive effects of one kind ``delay`` seconds late, as a beacon outrun under load is."""

    def __init__(self, store: EffectStore, kind: str, delay: float) -> None:
        self._add = store.add_effect
        self._kind = kind
        self._delay = delay

    def __call__(self, token: str, effect: Mapping[str, Any]) -> None:
        if effect.get("kind") == self._kind:
            threading.Timer(self._delay, self._add, (token, effect)).start()
        else:
            self._add(token, effect)


def test_the_barrier_waits_for_an_effect_the_server_receives_late(
    env: Environment, page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    page.goto(env.url("keys.html"))
    env.settle()
    monkeypatch.setattr(env.store, "add_effect", _LateDelivery(env.store, "late", 0.6))
    page.evaluate("window.kitRecord('late', {})")
    # What a quiet window saw: the late effect had not arrived when the page had been quiet for 0.15 s.
    env.store.settle(env.session, 0.15)
    assert not env.effects("late")
    page.evaluate("window.kitRecord('late', {})")
    started = time.monotonic()
    position = env.settle()
    assert len(env.effects("late")) == 2, "the barrier held before the page's own record arrived"
    assert position == len(env.effects())
    assert time.monotonic() - started < 3.0


def test_the_barrier_covers_a_page_that_navigated_and_a_second_tab(env: Environment, page: Any) -> None:
    page.goto(env.url("tabs-a.html"))
    page.evaluate("window.kitRecord('before-leaving', {})")
    page.goto(env.url("tabs-b.html"))
    second = page.context.new_page()
    second.goto(env.url("forms.html"))
    second.evaluate("window.kitRecord('in-the-second-tab', {})")
    env.settle()
    assert env.effects("before-leaving") and env.effects("in-the-second-tab")
    pages = {effect["page"] for effect in env.effects("load")}
    assert {"tabs-a.html", "tabs-b.html", "forms.html"} <= pages
    assert not any("__barrier" in request.path for request in env.requests()), "barrier traffic is not a request"


def test_a_page_that_cannot_open_its_socket_falls_back_to_a_quiet_window_with_a_note(
    socketless_env: Environment, notes: list[str], page: Any
) -> None:
    env = socketless_env
    page.goto(env.url("forms.html"))
    env.wait_for_effect("load")
    started = time.monotonic()
    env.settle(limit=3.0)
    assert time.monotonic() - started < 3.0, "a page that can never answer should not hold the barrier"
    assert notes and "could not open its barrier socket" in notes[0], notes


def _refuse_upgrade(key: str) -> str:
    raise ConnectionAbortedError("this proxy refuses WebSockets")


# ----- a page that times itself by the barrier (wait.html, for wait_for) ------------------------------------------


def test_the_wait_page_restarts_its_clock_at_each_marker_and_shows_its_text_no_sooner(
    env: Environment, page: Any
) -> None:
    page.goto(env.url(WAIT_PAGE))
    env.wait_for_effect("load")
    env.settle()
    env.settle()
    revealed = env.wait_for_effect("revealed", timeout=10.0)
    starts = [effect["marker"] for effect in env.effects("clock")]
    assert starts == [1, 2], starts
    last = env.marker_raised_at(starts[-1])
    assert last is not None
    assert _earliest_reveal(env, revealed) == pytest.approx(last + WAIT_PAGE_DELAY_S)
    # The text showed no sooner than that: its record cannot have reached the kit before.
    arrived = time.time() - (time.monotonic() - revealed["received"])
    assert arrived >= last + WAIT_PAGE_DELAY_S


def test_the_wait_page_without_a_socket_starts_its_clock_on_its_own(socketless_env: Environment, page: Any) -> None:
    env = socketless_env
    page.goto(env.url(WAIT_PAGE))
    revealed = env.wait_for_effect("revealed", timeout=10.0)
    assert [effect["marker"] for effect in env.effects("clock")] == [None]
    requested = [request.at for request in env.requests() if request.path == "wait.html"][-1]
    expected = requested + WAIT_PAGE_FALLBACK_S + WAIT_PAGE_DELAY_S
    assert _earliest_reveal(env, revealed) == pytest.approx(expected)


def test_an_effect_no_call_caused_is_known_missing_once_the_barrier_holds(
    env: Environment, page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(environment, "AFTER_BARRIER_SECONDS", 0.2)
    page.goto(env.url("keys.html"))
    env.wait_for_effect("load")
    started = time.monotonic()
    assert env.poll_effect_of_call("click", timeout=20.0) is None
    assert time.monotonic() - started < 5.0, "the whole timeout was waited although the barrier held"


def test_an_effect_of_the_call_still_on_its_way_is_found(
    env: Environment, page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(environment, "AFTER_BARRIER_SECONDS", 0.0)
    page.goto(env.url("keys.html"))
    env.settle()
    # The page recorded it before the check asks, but the server receives it late: the barrier waits for it.
    monkeypatch.setattr(env.store, "add_effect", _LateDelivery(env.store, "late", 0.6))
    page.evaluate("window.kitRecord('late', {})")
    assert env.poll_effect_of_call("late", timeout=20.0) is not None


def test_without_a_barrier_an_effect_of_the_call_gets_the_whole_timeout(socketless_env: Environment, page: Any) -> None:
    env = socketless_env
    page.goto(env.url("keys.html"))
    env.wait_for_effect("load")
    started = time.monotonic()
    assert env.poll_effect_of_call("click", timeout=1.5) is None
    assert time.monotonic() - started >= 1.5
