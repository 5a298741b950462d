"""The thorough tier's marking (tests/tiers.py): only the named cases move, and a name no case has is an error."""

from __future__ import annotations

import pytest

from tests.tiers import tiered


def test_only_the_named_cases_are_thorough() -> None:
    params = tiered(["a", "b", "c"], ("b",))
    assert [param.id for param in params] == ["a", "b", "c"]
    assert [[mark.name for mark in param.marks] for param in params] == [[], ["thorough"], []]


def test_a_name_no_case_has_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"no such case to mark thorough: \['renamed'\]"):
        tiered(["a"], ("renamed",))
