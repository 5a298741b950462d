"""The start-page precondition waits its full deadline once per process, then only the short one."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from conformance.assertions import CheckSkipped, ClauseViolation, PreconditionFailed
from conformance.contracts.browser import _effects


@pytest.fixture(autouse=True)
def fresh_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test is a process of its own: no earlier miss, report or silence carried over."""
    monkeypatch.setattr(_effects, "_deadline", _effects._StartPageDeadline())


class _PageThatNeverLoads:
    """Just enough of a check's environment: its start page never records loading; each wait is noted."""

    start_url = "http://127.0.0.1:1/pages/forms.html"

    def __init__(self) -> None:
        self.waits: list[float] = []

    def poll_effect(self, kind: str, matches: Any, seconds: float) -> None:
        self.waits.append(seconds)

    def effects(self, kind: str) -> list[dict[str, str]]:
        return [{"page": "empty.html"}]


def test_after_the_first_miss_later_checks_wait_the_short_deadline_and_say_so() -> None:
    env = _PageThatNeverLoads()
    subject: Any = SimpleNamespace(env=env)
    details = []
    for _ in range(3):
        with pytest.raises(ClauseViolation) as raised:
            _effects.start_page_shown(subject)
        assert raised.value.clause_id == _effects.START_PAGE_CLAUSE
        details.append(str(raised.value))
    # Each miss also looks once more, briefly, after reading the driver's state (reports held between calls).
    late = _effects.START_PAGE_SECONDS_WHEN_SILENT
    assert env.waits == [
        _effects.START_PAGE_SECONDS,
        late,
        _effects.START_PAGE_SECONDS_AFTER_A_MISS,
        late,
        _effects.START_PAGE_SECONDS_AFTER_A_MISS,
        late,
    ]
    assert "within 20 s (pages that loaded: empty.html)" in details[0]
    assert "within 3 s (an earlier check already waited 20 s for its own)" in details[1]


class _ShownButSilent(_PageThatNeverLoads):
    """The page was served and the driver shows it, but none of its reports ever reach the kit."""

    allowed_origins = ("http://127.0.0.1:1",)

    def was_served(self, page: str) -> bool:
        return page == "forms.html"


def _showing(title: str) -> Any:
    return lambda: {"tabs": [{"id": "t1", "title": title, "url": "http://127.0.0.1:1", "active": True}]}


def test_a_page_shown_whose_reports_are_blocked_is_not_checked_and_later_checks_stop_waiting() -> None:
    env = _ShownButSilent()
    # forms.html's own title, read by the driver from its browser: evidence the kit needs no page report for.
    subject: Any = SimpleNamespace(env=env, state=_showing("Delivery preferences"))
    for _ in range(2):
        with pytest.raises(CheckSkipped) as raised:
            _effects.start_page_shown(subject)
        assert raised.value.kind == "not_checked"
        assert "is shown (state() reports its title 'Delivery preferences')" in raised.value.detail
        assert "allow the kit's fixture origins (http://127.0.0.1:1)" in raised.value.detail
    # The first check waits the full deadline; once it proved the page silent, no check waits long again.
    silent = _effects.START_PAGE_SECONDS_WHEN_SILENT
    assert env.waits == [_effects.START_PAGE_SECONDS, silent, silent, silent]


def test_a_page_served_but_not_shown_is_the_start_page_clause_and_blocks_the_check() -> None:
    subject: Any = SimpleNamespace(env=_ShownButSilent(), state=_showing("Something else"))
    with pytest.raises(PreconditionFailed) as raised:
        _effects.start_page_shown(subject)
    assert raised.value.clause_id == _effects.START_PAGE_CLAUSE
    assert "its state() reports an active tab titled 'Something else'" in str(raised.value)


class _ReportsOnlyAtFirst(_ShownButSilent):
    """The first check's page reports; every later one is shown but silent, as on an overloaded machine."""

    def poll_effect(self, kind: str, matches: Any, seconds: float) -> dict[str, str] | None:
        self.waits.append(seconds)
        return {"kind": "load", "page": "forms.html"} if len(self.waits) == 1 else None


def test_silence_after_a_page_has_reported_is_slowness_not_a_guard_and_keeps_the_full_wait() -> None:
    env = _ReportsOnlyAtFirst()
    subject: Any = SimpleNamespace(env=env, state=_showing("Delivery preferences"))
    assert _effects.start_page_shown(subject)["page"] == "forms.html"
    for _ in range(2):
        with pytest.raises(CheckSkipped) as raised:
            _effects.start_page_shown(subject)
        assert raised.value.kind == "not_checked"
        assert "earlier pages' reports reached the kit in this run" in raised.value.detail
        assert "network guard" not in raised.value.detail
    # The kit's origin is reachable, so no check is cut short: each silent page gets the full deadline again.
    silent = _effects.START_PAGE_SECONDS_WHEN_SILENT
    full = _effects.START_PAGE_SECONDS
    assert env.waits == [full, full, silent, full, silent]


def _tab(title: str, url: str) -> Any:
    return lambda: {"tabs": [{"id": "t1", "title": title, "url": url, "active": True}]}


def test_a_served_page_at_the_start_url_is_shown_whatever_title_the_driver_reports() -> None:
    # A driver built for one page may report a fixed title of its own; its URL still says the page is there.
    env = _ShownButSilent()
    subject: Any = SimpleNamespace(env=env, state=_tab("Book a table", env.start_url))
    with pytest.raises(CheckSkipped) as raised:
        _effects.start_page_shown(subject)
    assert raised.value.kind == "not_checked"
    assert f"is shown (state() reports its URL {env.start_url!r})" in raised.value.detail


class _LongTitleShownButSilent(_ShownButSilent):
    start_url = "http://127.0.0.1:1/pages/long-title.html"

    def was_served(self, page: str) -> bool:
        return page == "long-title.html"


def test_a_long_title_cut_on_a_character_boundary_still_shows_the_page() -> None:
    full = _effects._title_of("long-title.html")
    assert full is not None and len(full.encode("utf-8")) > _effects.TITLE_BYTES
    cut = full.encode("utf-8")[: _effects.TITLE_BYTES].decode("utf-8", errors="ignore")
    subject: Any = SimpleNamespace(env=_LongTitleShownButSilent(), state=_tab(cut, "about:blank"))
    with pytest.raises(CheckSkipped) as raised:
        _effects.start_page_shown(subject)
    assert "is shown (state() reports its title" in raised.value.detail


def test_a_prefix_of_a_short_title_elsewhere_is_not_the_page_shown() -> None:
    # Only a title over the limit may be cut: "Delivery" alone is another page's title, not forms.html's cut.
    subject: Any = SimpleNamespace(env=_ShownButSilent(), state=_tab("Delivery", "http://127.0.0.1:1/other.html"))
    with pytest.raises(PreconditionFailed) as raised:
        _effects.start_page_shown(subject)
    assert raised.value.clause_id == _effects.START_PAGE_CLAUSE
