"""The browser action clause list and its checks agree: every clause is declared by a check, and every clause a
check names exists.

The scan is static (ast over conformance/contracts/browser/check_*.py), so it needs no driver and catches a
clause that no check covers, or a typo in a ``@pytest.mark.clause`` marker or an ``expect(...)`` call, before a
certificate silently reports the clause as "not checked".
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conformance.clauses import load_clauses, registry
from tests.conformance.contracts.clause_markers import named_clauses

CLAUSES = load_clauses("browser_act")

CHECKS = Path(__file__).resolve().parents[4] / "conformance" / "contracts" / "browser"
ACT_FAMILIES = ("NAV", "ACT", "TAB", "IMG", "PTR", "CHK", "NET", "DLG", "BIND", "CANCEL")
# Where the contract documents live on the kit's build machine; they are not shipped with the kit.
ACT_ID = re.compile(r"^BR-(?:" + "|".join(ACT_FAMILIES) + r")-\d{3}$")


def _named_act_ids() -> set[str]:
    """Every action-family clause ID written as a string anywhere in the browser check modules."""
    named: set[str] = set()
    for path in sorted(CHECKS.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        named.update(
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and ACT_ID.match(node.value)
        )
    return named


def test_the_action_list_is_not_empty_and_uses_only_its_families() -> None:
    assert len(CLAUSES) >= 60
    strays = [clause.id for clause in CLAUSES if not ACT_ID.match(clause.id)]
    assert not strays, f"clause IDs outside the action families: {strays}"


def test_every_action_clause_is_declared_by_a_check() -> None:
    declared = named_clauses(CHECKS)
    uncovered = [clause.id for clause in CLAUSES if clause.id not in declared]
    assert not uncovered, f"clauses no check declares: {uncovered}"


def test_every_clause_a_check_names_exists() -> None:
    known = {clause.id for clause in registry()}
    unknown_markers = sorted(named_clauses(CHECKS) - known)
    assert not unknown_markers, f"clause markers naming no clause: {unknown_markers}"
    unknown_named = sorted(_named_act_ids() - known)
    assert not unknown_named, f"check modules name clauses that do not exist: {unknown_named}"
