"""Failure messages name what really happened: the SDK rejecting state(), the driver's own exception, and a
fixture page whose recorder could not report back to the kit."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator

import pytest

from conformance.harness.calls import CallRecord
from conformance.harness.environment import Environment
from conformance.harness.fixture_server import FixtureServer
from conformance.harness.subject import CallOutcome

GOOD_STATE = {"tabs": [{"id": "t", "title": "", "url": "https://example.test", "active": True}]}


def test_a_state_the_sdk_rejected_before_the_member_ran_is_named() -> None:
    outcome = CallOutcome(
        "navigate", arguments={"url": "x"}, calls=[CallRecord("state", None, False, {"tabs": 1}, None, True)]
    )
    outcome.sdk_error = TypeError("tabs must be a list")
    assert outcome.describe() == "the SDK rejected state() before navigate ran: TypeError: tabs must be a list"


def test_a_state_the_sdk_rejected_after_the_member_ran_is_named() -> None:
    calls = [
        CallRecord("state", None, False, GOOD_STATE, None, True),
        CallRecord("click", {"target": "r1"}, False, None, None, True),
        CallRecord("state", None, False, {"tabs": 1}, None, True),
    ]
    outcome = CallOutcome("click", arguments={"target": "r1"}, calls=calls)
    outcome.sdk_error = TypeError("tabs must be a list")
    assert outcome.describe() == "the SDK rejected state() after: TypeError: tabs must be a list"


def test_a_drivers_exception_keeps_its_class_and_bounded_message() -> None:
    error = RuntimeError("x" * 5000)
    outcome = CallOutcome("click", arguments={}, calls=[CallRecord("click", {}, False, None, error, True)])
    described = outcome.describe()
    assert described.startswith("click raised RuntimeError: xxx")
    assert described.endswith("[5,014 characters in all]")


def test_a_member_the_sdk_never_called_says_what_the_sdk_answered() -> None:
    outcome = CallOutcome("click", arguments={}, calls=[CallRecord("state", None, False, GOOD_STATE, None, True)])
    outcome.payload = {"ok": False, "error": "unknown tab"}
    assert outcome.describe() == "the SDK did not call click (it answered ok=False: unknown tab)"


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    started = FixtureServer().start()
    try:
        yield started
    finally:
        started.stop()


def _fetch(url: str) -> None:
    with urllib.request.urlopen(url, timeout=10) as response:
        response.read()


def _environment(server: FixtureServer, notes: list[str]) -> Iterator[Environment]:
    tokens = server.session()
    try:
        yield Environment(server, next(tokens), "forms.html", note=notes.append)
    finally:
        tokens.close()


def test_a_page_never_requested_was_never_loaded(server: FixtureServer) -> None:
    notes: list[str] = []
    for env in _environment(server, notes):
        assert env.silence() == "the fixture server never received a request for forms.html: the driver did not load it"
    assert notes == []


def test_a_page_whose_recorder_was_blocked_is_a_finding_of_its_own(server: FixtureServer) -> None:
    notes: list[str] = []
    for env in _environment(server, notes):
        _fetch(env.start_url)  # the page arrived, but nothing it asks of the fixture origin did
        silence = env.silence()
        assert silence is not None and "its recorder.js never was" in silence
        assert env.main_origin in silence
        env.silence()
    assert len(notes) == 1, "the finding is noted once per check"


def test_a_page_whose_events_could_not_be_posted_says_so(server: FixtureServer) -> None:
    for env in _environment(server, []):
        _fetch(env.start_url)
        _fetch(env.url("recorder.js"))
        silence = env.silence()
        assert silence is not None and "no event came back" in silence


def test_a_page_that_reported_is_not_silent(server: FixtureServer) -> None:
    for env in _environment(server, []):
        request = urllib.request.Request(env.url("__effect"), data=b'{"kind": "load"}', method="POST")
        with urllib.request.urlopen(request, timeout=10):
            pass
        assert env.silence() is None
