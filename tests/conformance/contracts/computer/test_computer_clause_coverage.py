"""Every CO- clause is covered by at least one computer check, and every check names only known CO- clauses."""

from __future__ import annotations

import ast
from pathlib import Path

from conformance.clauses import registry

CHECKS = Path(__file__).resolve().parents[4] / "conformance" / "contracts" / "computer"


def _declared_clauses() -> dict[str, set[str]]:
    """Clause IDs named by @pytest.mark.clause(...) decorators, per check function."""
    declared: dict[str, set[str]] = {}
    for module in sorted(CHECKS.glob("check_*.py")):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
                continue
            for decorator in node.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and isinstance(decorator.func, ast.Attribute)
                    and decorator.func.attr == "clause"
                ):
                    ids = {str(arg.value) for arg in decorator.args if isinstance(arg, ast.Constant)}
                    declared.setdefault(f"{module.name}::{node.name}", set()).update(ids)
    return declared


def test_every_check_declares_clauses() -> None:
    functions = {
        f"{module.name}::{node.name}"
        for module in CHECKS.glob("check_*.py")
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    }
    assert functions
    assert functions == set(_declared_clauses())


def test_every_computer_clause_is_covered_and_no_unknown_clause_is_named() -> None:
    known = {clause.id for clause in registry().with_prefix("CO")}
    named = set().union(*_declared_clauses().values())
    assert known - named == set(), "clauses no check covers"
    assert named - known == set(), "checks name clauses that do not exist"
