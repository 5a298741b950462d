"""Every EX- clause is covered by at least one execution check, and every check names only known EX- clauses."""

from __future__ import annotations

from pathlib import Path

from conformance.clauses import registry
from tests.conformance.contracts.clause_markers import check_names, declared_clauses, named_clauses

CHECKS = Path(__file__).resolve().parents[4] / "conformance" / "contracts" / "execution"


def test_every_check_declares_clauses() -> None:
    declared = declared_clauses(CHECKS)
    assert declared
    assert set(declared) == check_names(CHECKS), sorted(check_names(CHECKS) - set(declared))
    assert all(declared.values()), [name for name, ids in declared.items() if not ids]


def test_every_execution_clause_is_covered_and_no_unknown_clause_is_named() -> None:
    known = {clause.id for clause in registry().with_prefix("EX")}
    named = named_clauses(CHECKS)
    assert known - named == set(), "clauses no check covers"
    assert named - known == set(), "checks name clauses that do not exist"
