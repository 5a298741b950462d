"""certificate.md reads top-down for a driver author: what to fix, what could not be exercised, what was not
checked, then the versions and the full table; an incomplete run is never more than "not fully checked"."""

from __future__ import annotations

from conformance import certificate
from conformance.clauses import Clause
from conformance.session import ClauseResult


def _clause(clause_id: str, member: str | None) -> Clause:
    return Clause(clause_id, "002", "Driver contract", f"summary of {clause_id}", member)


RESULTS = [
    ClauseResult(_clause("BR-A-001", "click"), "failed", ["c1"], ["click raised RuntimeError: boom"]),
    ClauseResult(_clause("BR-A-002", "navigate"), "failed", ["c2"], ["navigate returned 3"]),
    ClauseResult(_clause("BR-A-003", None), "passed", ["c3"]),
    ClauseResult(_clause("BR-A-004", "hover"), "unverified", ["c4"], ["needs a structured read"], ["hover"]),
    ClauseResult(_clause("BR-A-005", "zoom"), "not_checked", ["c5"], ["environment: the browser did not start"]),
    ClauseResult(_clause("BR-A-006", "scroll"), "not_checked", []),
]


def test_the_page_starts_with_what_to_fix_then_unverified_then_not_checked() -> None:
    built = certificate.build([certificate.CertifiedSubject("browser driver", "m:f", None)], RESULTS, notes=["a note"])
    page = certificate.render_markdown(built)
    order = ["## What to fix", "### `click`", "### `navigate`", "## Implemented but unverified", "## Not checked"]
    order += ["## Notes from the harness", "## Versions", "## All clauses"]
    positions = [page.index(heading) for heading in order]
    assert positions == sorted(positions), page
    assert "- **BR-A-001** summary of BR-A-001: click raised RuntimeError: boom" in page
    assert "- `hover` (BR-A-004): needs a structured read" in page
    assert "- environment: the browser did not start: BR-A-005" in page
    assert f"- {certificate.NOT_RUN}: BR-A-006" in page
    assert "- a note" in page


def test_an_incomplete_run_is_not_fully_checked_even_when_all_it_reached_passed() -> None:
    passed = [ClauseResult(_clause("BR-A-003", None), "passed", ["c3"])]
    assert certificate.verdict_of_results(passed) == "conforms"
    built = certificate.build([], passed, incomplete=["the run was interrupted (KeyboardInterrupt)"])
    assert built["verdict"] == "not fully checked"
    assert built["run"] == {
        "complete": False,
        "incomplete": ["the run was interrupted (KeyboardInterrupt)"],
        "notes": [],
    }
    assert "**This run did not check everything:**" in certificate.render_markdown(built)


def test_reasons_are_bounded_in_the_certificate() -> None:
    huge = [ClauseResult(_clause("BR-A-001", "click"), "failed", ["c1"], ["T" * 10_000_000])]
    reason = certificate.build([], huge)["clauses"][0]["reasons"][0]
    assert reason == "T" * certificate.REASON_LIMIT + "... [10,000,000 characters in all]"
