"""certificate.md reads top-down for a driver author: what to fix first (the cause blocking most first), what
could not be exercised, what was not checked, then the versions and the full table; an incomplete run is never
more than "not fully checked"."""

from __future__ import annotations

from conformance import certificate
from conformance.clauses import Clause
from conformance.session import DESELECTED, ClauseResult


def _clause(clause_id: str, member: str | None) -> Clause:
    return Clause(clause_id, "002", "Driver contract", f"summary of {clause_id}", member)


RESULTS = [
    ClauseResult(_clause("BR-A-001", "click"), "failed", ["c1"], ["click raised RuntimeError: boom"]),
    ClauseResult(_clause("BR-A-002", "navigate"), "failed", ["c2"], ["navigate returned 3"]),
    ClauseResult(_clause("BR-A-003", None), "passed", ["c3"]),
    ClauseResult(_clause("BR-A-004", "hover"), "unverified", ["c4"], ["needs a structured read"], ["hover"]),
    ClauseResult(
        _clause("BR-A-005", "zoom"),
        "not_checked",
        ["c5"],
        ["environment: the browser did not start"],
        [],
        "environment",
    ),
    ClauseResult(_clause("BR-A-006", "scroll"), "not_checked", [], [DESELECTED], [], "not_run"),
    ClauseResult(
        _clause("BR-A-007", "hover"),
        "not_checked",
        ["c7"],
        ["blocked by BR-A-002 (failed in c2)"],
        [],
        "blocked",
        "BR-A-002",
    ),
]


def test_the_page_starts_with_what_to_fix_then_unverified_then_not_checked() -> None:
    built = certificate.build([certificate.CertifiedSubject("browser driver", "m:f", None)], RESULTS, notes=["a note"])
    page = certificate.render_markdown(built)
    order = ["## What to fix first", "1. **BR-A-002**", "2. **BR-A-001**", "## Implemented but unverified"]
    order += ["## Not checked", "## Notes from the harness", "## Versions", "## All clauses"]
    positions = [page.index(heading) for heading in order]
    assert positions == sorted(positions), page
    # The cause that blocks a clause comes first, and says what it blocks.
    assert "1. **BR-A-002** summary of BR-A-002: navigate returned 3" in page
    assert "   - blocks 1 clause (BR-A-007), about `hover`, `navigate`" in page
    assert "2. **BR-A-001** summary of BR-A-001: click raised RuntimeError: boom" in page
    assert "- `hover` (BR-A-004): needs a structured read" in page
    assert "- environment: the browser did not start: BR-A-005" in page
    assert f"- {DESELECTED}: BR-A-006" in page
    assert built["fix_first"] == [
        {"clause": "BR-A-002", "blocks": ["BR-A-007"], "members": ["hover", "navigate"]},
        {"clause": "BR-A-001", "blocks": [], "members": ["click"]},
    ]
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
