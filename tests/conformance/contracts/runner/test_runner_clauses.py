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


# The code-execution guide speaks of the runner loop in one section only: bringing your own function and MCP tools.
RUNNER_SECTIONS_OF_THE_CODE_EXECUTION_GUIDE = {"Use your own UI tools"}


def test_runner_clauses_cite_runner_sections() -> None:
    misplaced = [
        clause.id
        for clause in CLAUSES
        if not clause.id.startswith("RN-")
        or not (
            clause.spec in ("000", "002")
            or (clause.spec == "003" and clause.section in RUNNER_SECTIONS_OF_THE_CODE_EXECUTION_GUIDE)
        )
    ]
    assert not misplaced
