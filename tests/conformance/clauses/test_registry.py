"""The clause registry's mechanics: every part loads, a missing or malformed part fails loudly and names itself."""

from __future__ import annotations

import sys
import types

import pytest

from conformance import clauses
from conformance.clauses import PART_MODULES, MissingClausePartError, _load_part, registry


def test_every_part_contributes_clauses() -> None:
    parts = {clause.part for clause in registry()}
    assert {"BR", "TS", "RN", "CO"} <= parts
    assert all(_load_part(name) for name in PART_MODULES)


def test_a_missing_part_module_is_an_error_naming_it() -> None:
    with pytest.raises(MissingClausePartError, match=r"clause part 'gone' \(conformance\.clauses\.gone\): .*not exist"):
        _load_part("gone")


def test_a_part_without_a_clause_tuple_is_an_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    hollow = types.ModuleType(f"{clauses.__name__}.hollow")
    hollow.CLAUSES = ["not a clause"]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, hollow.__name__, hollow)
    with pytest.raises(MissingClausePartError, match=r"'hollow'.*no CLAUSES tuple"):
        _load_part("hollow")
