"""Which checks judge each clause: ``driverkit clauses --checks`` and ``driverkit clauses ID...``.

Read from the checks themselves, so it cannot drift: every ``check_*.py`` module under ``conformance/contracts/``
is imported and each test function's ``clause`` marks are read (on the function, on its module's ``pytestmark``,
and on the ``pytest.param`` cases of its ``parametrize`` marks). Importing is enough; nothing is collected or run,
so no driver, desktop or Node is needed.
"""

from __future__ import annotations

import importlib
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest

CONTRACTS: Final[Path] = Path(__file__).resolve().parents[1] / "contracts"
# Clauses no single check declares because the harness judges them in every check.
JUDGED_BY_THE_HARNESS: Final[dict[str, str]] = {
    "BR-SDK-001": "every browser check, through the harness (conformance/harness/subject.py)",
}


def _as_marks(found: object) -> list[pytest.Mark]:
    # A mark is stored as a Mark, or as the MarkDecorator that made it (module pytestmark, pytest.param marks).
    items = found if isinstance(found, (list, tuple)) else [found]
    marks: list[pytest.Mark] = []
    for item in items:
        if isinstance(item, pytest.MarkDecorator):
            marks.append(item.mark)
        elif isinstance(item, pytest.Mark):
            marks.append(item)
    return marks


def _clause_ids(marks: Iterable[pytest.Mark]) -> Iterator[str]:
    for mark in marks:
        if mark.name == "clause":
            yield from (str(argument) for argument in mark.args)
        elif mark.name == "parametrize" and len(mark.args) > 1:
            for case in mark.args[1]:
                # A pytest.param case carries its own marks (a boundary case marked with the clause it tests).
                yield from _clause_ids(_as_marks(getattr(case, "marks", ())))


def _check_modules() -> Iterator[tuple[str, Any]]:
    for path in sorted(CONTRACTS.rglob("check_*.py")):
        relative = path.relative_to(CONTRACTS)
        dotted = ".".join(("conformance", "contracts", *relative.with_suffix("").parts))
        yield relative.as_posix(), importlib.import_module(dotted)


def checks_by_clause() -> dict[str, list[str]]:
    """Each clause ID the checks declare -> the checks (``<suite>/<module>.py::<test>``) that declare it."""
    found: dict[str, list[str]] = defaultdict(list)
    for relative, module in _check_modules():
        module_ids = list(_clause_ids(_as_marks(getattr(module, "pytestmark", []))))
        for name, value in vars(module).items():
            is_check = name.startswith("test") and callable(value)
            if not is_check or getattr(value, "__module__", "") != module.__name__:
                continue
            own = _clause_ids(_as_marks(getattr(value, "pytestmark", [])))
            for clause_id in dict.fromkeys([*module_ids, *own]):
                found[clause_id].append(f"{relative}::{name}")
    return dict(found)


def checks_lines(clause_ids: Iterable[str] = (), *, part: str | None = None) -> list[str]:
    """``driverkit clauses --checks`` (every clause, or one family's) or ``driverkit clauses ID...`` (those, with
    where each is defined and the document statements it covers). An unknown ID is an :class:`UnknownClauseError`."""
    from conformance.clauses import registry
    from conformance.clauses.coverage import load_map

    clauses = registry()
    detailed = bool(clause_ids)
    wanted = [clauses.get(clause_id) for clause_id in clause_ids] if detailed else list(clauses)
    wanted = [clause for clause in wanted if part is None or clause.part == part]
    checks = checks_by_clause()
    statements = load_map(clauses).clauses_citing() if detailed else {}
    lines: list[str] = []
    for clause in wanted:
        member = f" [{clause.member}]" if clause.member else ""
        lines.append(f"{clause.id}{member}: {clause.summary}")
        if detailed:
            lines.append(f"  from: {clause.source}")
            lines.append(f"  defined in: conformance/clauses/{clause.file}.toml")
            covered = statements.get(clause.id, [])
            lines.append(f"  covers statements: {', '.join(covered) if covered else 'none'}")
        found = checks.get(clause.id, [])
        if clause.id in JUDGED_BY_THE_HARNESS:
            lines.append(f"  judged by {JUDGED_BY_THE_HARNESS[clause.id]}")
        elif not found:
            lines.append("  no check declares it")
        lines.extend(f"  check: conformance/contracts/{check}" for check in found)
    return lines
