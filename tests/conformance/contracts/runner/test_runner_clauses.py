"""Every RN- clause is declared by at least one runner check, and every declared clause exists."""

from __future__ import annotations

import ast
from pathlib import Path

import conformance.contracts.runner
from conformance.clauses import load_clauses, registry

CLAUSES = load_clauses("runner")

CHECKS = Path(conformance.contracts.runner.__file__).parent
CHECK_MODULES = sorted(CHECKS.glob("check_*.py"))


def test_the_suite_has_its_check_modules() -> None:
    # Guards the coverage below against passing over an empty folder (as it would after a rename).
    assert len(CHECK_MODULES) >= 15


def _declared() -> set[str]:
    declared: set[str] = set()
    for module in CHECK_MODULES:
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "clause":
                declared.update(arg.value for arg in node.args if isinstance(arg, ast.Constant))
    return declared


def test_every_runner_clause_is_covered() -> None:
    missing = sorted({clause.id for clause in CLAUSES} - _declared())
    assert not missing, f"RN clauses without a check: {missing}"


def test_every_declared_clause_exists() -> None:
    unknown = sorted(clause_id for clause_id in _declared() if clause_id not in registry())
    assert not unknown


def test_runner_clauses_cite_runner_sections() -> None:
    assert all(clause.id.startswith("RN-") and clause.spec in ("000", "002") for clause in CLAUSES)
