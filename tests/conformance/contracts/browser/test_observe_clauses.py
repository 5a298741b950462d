"""Registry coverage for the observation clauses: every clause in the list is declared by some browser check,
and every clause a check declares exists.

The scan is static (it reads the ``@pytest.mark.clause(...)`` markers from the check modules' syntax trees), so
it needs no driver and no browser.
"""

from __future__ import annotations

import re
from pathlib import Path

from conformance.clauses import load_clauses, registry
from tests.conformance.contracts.clause_markers import named_clauses

CLAUSES = load_clauses("browser_observe")

CHECKS = Path(__file__).resolve().parents[4] / "conformance" / "contracts" / "browser"
FAMILIES = ("STATE", "OBS", "URL", "READ", "REF", "PRIV", "ERR", "SCOPE", "DIAG", "SCRIPT", "FILE")


def test_every_observation_clause_is_declared_by_a_check() -> None:
    declared = named_clauses(CHECKS)
    uncovered = [clause.id for clause in CLAUSES if clause.id not in declared]
    assert not uncovered, f"clauses no check declares: {uncovered}"


def test_every_declared_clause_exists() -> None:
    known = registry()
    unknown = sorted(clause_id for clause_id in named_clauses(CHECKS) if clause_id not in known)
    assert not unknown, f"checks declare clauses no list defines: {unknown}"


def test_observation_clause_ids_are_well_formed() -> None:
    pattern = re.compile(rf"BR-({'|'.join(FAMILIES)})-\d{{3}}")
    malformed = [clause.id for clause in CLAUSES if not pattern.fullmatch(clause.id)]
    assert not malformed, f"observation clause IDs outside the BR-<family>-nnn scheme: {malformed}"
    for clause in CLAUSES:
        assert clause.spec in ("000", "002", "004"), f"{clause.id} cites spec {clause.spec}"
        assert clause.summary.endswith("."), f"{clause.id} summary is not a sentence"
        assert len(clause.summary) <= 160, f"{clause.id} summary is longer than one line"
