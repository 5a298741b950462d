"""The start-page precondition waits its full deadline once per process, then only the short one."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from conformance.assertions import ClauseViolation
from conformance.contracts.browser import _effects


class _PageThatNeverLoads:
    """Just enough of a check's environment: its start page never records loading; each wait is noted."""

    start_url = "http://127.0.0.1:1/pages/forms.html"

    def __init__(self) -> None:
        self.waits: list[float] = []

    def poll_effect(self, kind: str, matches: Any, seconds: float) -> None:
        self.waits.append(seconds)

    def effects(self, kind: str) -> list[dict[str, str]]:
        return [{"page": "empty.html"}]


def test_after_the_first_miss_later_checks_wait_the_short_deadline_and_say_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_effects, "_deadline", _effects._StartPageDeadline())
    env = _PageThatNeverLoads()
    subject: Any = SimpleNamespace(env=env)
    details = []
    for _ in range(3):
        with pytest.raises(ClauseViolation) as raised:
            _effects.start_page_shown(subject)
        assert raised.value.clause_id == _effects.START_PAGE_CLAUSE
        details.append(str(raised.value))
    assert env.waits == [
        _effects.START_PAGE_SECONDS,
        _effects.START_PAGE_SECONDS_AFTER_A_MISS,
        _effects.START_PAGE_SECONDS_AFTER_A_MISS,
    ]
    assert "within 20 s (pages that loaded: empty.html)" in details[0]
    assert "within 3 s (an earlier check already waited 20 s for its own)" in details[1]
