"""Registry coverage for the observation clauses: every clause in the list is declared by some browser check,
and every clause a check declares exists.

The scan is static (it reads the ``@pytest.mark.clause(...)`` markers from the check modules' syntax trees), so
it needs no driver and no browser.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conformance.clauses import load_clauses, registry

CLAUSES = load_clauses("browser_observe")

CHECKS = Path(__file__).resolve().parents[4] / "conformance" / "contracts" / "browser"
FAMILIES = ("STATE", "OBS", "URL", "READ", "REF", "PRIV", "ERR", "SCOPE", "DIAG", "SCRIPT", "FILE")


def declared_clauses() -> dict[str, set[str]]:
    """Clause ID -> names of the check modules whose ``clause`` markers declare it."""
    found: dict[str, set[str]] = {}
    for module in sorted(CHECKS.glob("check_*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"), filename=str(module))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "clause"
                and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr == "mark"
            ):
                for argument in node.args:
                    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                        found.setdefault(argument.value, set()).add(module.name)
    return found


def test_every_observation_clause_is_declared_by_a_check() -> None:
    declared = declared_clauses()
    uncovered = [clause.id for clause in CLAUSES if clause.id not in declared]
    assert not uncovered, f"clauses no check declares: {uncovered}"


def test_every_declared_clause_exists() -> None:
    known = registry()
    unknown = sorted(clause_id for clause_id in declared_clauses() if clause_id not in known)
    assert not unknown, f"checks declare clauses no list defines: {unknown}"


def test_observation_clause_ids_are_well_formed() -> None:
    pattern = re.compile(rf"BR-({'|'.join(FAMILIES)})-\d{{3}}")
    malformed = [clause.id for clause in CLAUSES if not pattern.fullmatch(clause.id)]
    assert not malformed, f"observation clause IDs outside the BR-<family>-nnn scheme: {malformed}"
    for clause in CLAUSES:
        assert clause.spec in ("000", "002", "004"), f"{clause.id} cites spec {clause.spec}"
        assert clause.summary.endswith("."), f"{clause.id} summary is not a sentence"
        assert len(clause.summary) <= 160, f"{clause.id} summary is longer than one line"
