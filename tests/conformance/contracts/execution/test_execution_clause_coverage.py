"""Every EX- clause is covered by at least one execution check, and every check names only known EX- clauses."""

from __future__ import annotations

import ast
from pathlib import Path

from conformance.clauses import registry

CHECKS = Path(__file__).resolve().parents[4] / "conformance" / "contracts" / "execution"


def _declared_clauses() -> dict[str, set[str]]:
    """Clause IDs named by @pytest.mark.clause(...) decorators, per check function."""
    declared: dict[str, set[str]] = {}
    for module in sorted(CHECKS.glob("check_*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
                continue
            declared.setdefault(f"{module.name}::{node.name}", set())
            for decorator in node.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and isinstance(decorator.func, ast.Attribute)
                    and decorator.func.attr == "clause"
                ):
                    declared[f"{module.name}::{node.name}"].update(
                        str(arg.value) for arg in decorator.args if isinstance(arg, ast.Constant)
                    )
    return declared


def test_every_check_declares_clauses() -> None:
    declared = _declared_clauses()
    assert declared
    assert all(declared.values()), [name for name, ids in declared.items() if not ids]


def test_every_execution_clause_is_covered_and_no_unknown_clause_is_named() -> None:
    known = {clause.id for clause in registry().with_prefix("EX")}
    named = set().union(*_declared_clauses().values())
    assert known - named == set(), "clauses no check covers"
    assert named - known == set(), "checks name clauses that do not exist"
