"""``driverkit clauses --checks`` and ``driverkit clauses ID``: which checks judge a clause, read from the checks."""

from __future__ import annotations

import pytest

from conformance.clauses import registry
from conformance.clauses.checks import JUDGED_BY_THE_HARNESS, checks_by_clause, checks_lines
from conformance.cli import main


def test_every_clause_has_a_check_that_declares_it_or_is_judged_by_the_harness() -> None:
    # A clause no check declares can never fail: the kit would certify it on nothing.
    checks = checks_by_clause()
    orphans = sorted(
        clause.id for clause in registry() if clause.id not in checks and clause.id not in JUDGED_BY_THE_HARNESS
    )
    assert orphans == []


def test_checks_declared_on_the_function_and_on_parametrized_cases_are_found() -> None:
    checks = checks_by_clause()
    assert "toolset/check_validation.py::test_unfinished_call_is_refused_before_any_work" in checks["TS-VAL-014"]
    # TS-VAL-002 is declared only on the pytest.param cases of the boundary checks (one case per limit).
    assert "toolset/check_validation.py::test_boundary_value_is_accepted" in checks["TS-VAL-002"]
    assert set(checks_by_clause()) <= {clause.id for clause in registry()}


def test_one_clause_says_where_it_is_defined_what_it_covers_and_its_checks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clauses", "BR-NET-003"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("BR-NET-003: ")
    assert "  defined in: conformance/clauses/browser_act.toml" in out
    assert "  from: Browser and desktop drivers > Restrict URLs" in out
    assert "covers statements: " in out and "DRB-043" in out
    assert "  check: conformance/contracts/browser/check_network.py::" in out


def test_every_clause_is_listed_with_its_checks_and_a_part_keeps_one_family() -> None:
    lines = checks_lines(part="EX")
    headings = [line for line in lines if not line.startswith(" ")]
    assert headings and all(line.startswith("EX-") for line in headings)
    assert len(headings) == len(registry().with_prefix("EX"))
    assert any(line.startswith("  check: conformance/contracts/execution/") for line in lines)


def test_an_unknown_clause_id_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clauses", "BR-NOPE-001"]) == 2
    assert "unknown clause ID BR-NOPE-001" in capsys.readouterr().err
