"""File grants are single use, expiring, size-limited and owned (spec/000 "Opt in to diagnostics, ...")."""

from __future__ import annotations

import pytest

from conformance.members import FILE_OUTCOME_PAIRS
from reference.grants import GrantError, GrantStore, outcome

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _store() -> tuple[GrantStore, Clock]:
    clock = Clock()
    store = GrantStore(clock=clock)
    store.issue("g-1", kind="upload", owner="me", file_name="a.txt", content=b"abc", max_bytes=10, expires_in_s=5)
    return store, clock


def test_a_grant_is_redeemed_once_by_its_owner() -> None:
    store, _ = _store()
    assert store.redeem("g-1", kind="upload", owner="someone else") is None
    assert store.redeem("g-1", kind="download", owner="me") is None
    redemption = store.redeem("g-1", kind="upload", owner="me")
    assert redemption is not None and redemption.content == b"abc"
    assert store.redeem("g-1", kind="upload", owner="me") is None


def test_expired_and_oversized_grants_are_refused() -> None:
    store, clock = _store()
    clock.now += 5
    assert store.redeem("g-1", kind="upload", owner="me") is None
    store.issue("big", kind="upload", owner="me", file_name="b.bin", content=b"x" * 11, max_bytes=10, expires_in_s=5)
    assert store.redeem("big", kind="upload", owner="me") is None


def test_downloads_deliver_within_their_limit() -> None:
    store, _ = _store()
    store.issue("d", kind="download", owner="me", file_name="r.txt", max_bytes=4, expires_in_s=5)
    assert store.redeem("d", kind="download", owner="me") is not None
    assert not store.deliver("d", b"12345")
    assert store.deliver("d", b"1234") and store.received("d") == b"1234"


def test_issuing_rejects_paths_duplicates_and_bad_ids() -> None:
    store, _ = _store()
    with pytest.raises(GrantError, match="path"):
        store.issue("p", kind="upload", owner="me", file_name="../etc/passwd", max_bytes=1, expires_in_s=1)
    with pytest.raises(GrantError, match="already"):
        store.issue("g-1", kind="upload", owner="me", file_name="a", max_bytes=1, expires_in_s=1)
    with pytest.raises(GrantError):
        store.issue("x" * 257, kind="upload", owner="me", file_name="a", max_bytes=1, expires_in_s=1)


def test_outcomes_are_limited_to_the_documented_pairs() -> None:
    for status, effect in FILE_OUTCOME_PAIRS:
        assert outcome(status, effect, "completed")["status"] == status  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        outcome("completed", "none", "completed")
