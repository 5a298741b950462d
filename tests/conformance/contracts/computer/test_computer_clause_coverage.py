"""Every CO- clause is covered by at least one computer check, and every check names only known CO- clauses."""

from __future__ import annotations

from pathlib import Path

from conformance.clauses import registry
from tests.conformance.contracts.clause_markers import check_names, declared_clauses, named_clauses

CHECKS = Path(__file__).resolve().parents[4] / "conformance" / "contracts" / "computer"


def test_every_check_declares_clauses() -> None:
    functions = check_names(CHECKS)
    assert functions
    assert functions == set(declared_clauses(CHECKS))


def test_every_computer_clause_is_covered_and_no_unknown_clause_is_named() -> None:
    known = {clause.id for clause in registry().with_prefix("CO")}
    named = named_clauses(CHECKS)
    assert known - named == set(), "clauses no check covers"
    assert named - known == set(), "checks name clauses that do not exist"
