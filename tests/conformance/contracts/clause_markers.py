"""The clauses each check declares, read statically from its ``@pytest.mark.clause(...)`` decorator.

The clause-coverage tests of every check family read the check modules' syntax trees, so they need no driver and
catch a clause no check covers, or a typo in a marker, before a certificate silently reports it as "not checked".
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path


def _is_clause_marker(node: ast.expr) -> bool:
    """``pytest.mark.clause(...)`` (or ``mark.clause(...)``) as a decorator call."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "clause"
        and isinstance(node.func.value, ast.Attribute)
        and node.func.value.attr == "mark"
    )


def _checks(checks: Path) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every check (a ``test_`` function in ``checks/check_*.py``), named ``file::function``."""
    for path in sorted(checks.glob("check_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
                yield f"{path.name}::{node.name}", node


def check_names(checks: Path) -> set[str]:
    return {name for name, _node in _checks(checks)}


def declared_clauses(checks: Path) -> dict[str, set[str]]:
    """``file::function`` of every check with a clause marker -> the clause IDs its markers name as literals (a
    marker that spreads a list, as the exploration checks' do, names none this way)."""
    declared: dict[str, set[str]] = {}
    for name, node in _checks(checks):
        for decorator in node.decorator_list:
            if _is_clause_marker(decorator):
                assert isinstance(decorator, ast.Call)
                declared.setdefault(name, set()).update(
                    argument.value
                    for argument in decorator.args
                    if isinstance(argument, ast.Constant) and isinstance(argument.value, str)
                )
    return declared


def named_clauses(checks: Path) -> set[str]:
    """Every clause ID some check's clause marker in ``checks`` names."""
    return set().union(*declared_clauses(checks).values())
