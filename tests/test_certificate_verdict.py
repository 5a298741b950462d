"""The certificate's one-line verdict follows the worst clause status it found."""

from __future__ import annotations

import pytest

from conformance.certificate import verdict_of


@pytest.mark.parametrize(
    ("counts", "verdict"),
    [
        ({"passed": 10}, "conforms"),
        ({"passed": 8, "not_implemented": 2}, "conforms"),
        ({"passed": 8, "deviation": 2}, "conforms except for known deviations"),
        ({"passed": 8, "not_checked": 2}, "not fully checked"),
        ({"passed": 6, "not_checked": 2, "deviation": 2}, "not fully checked"),
        ({"passed": 8, "failed": 1, "not_checked": 1}, "does not conform"),
        ({"failed": 1, "deviation": 1}, "does not conform"),
    ],
)
def test_verdict_follows_the_worst_status(counts: dict[str, int], verdict: str) -> None:
    assert verdict_of(counts) == verdict
