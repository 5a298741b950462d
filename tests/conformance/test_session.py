"""How check results add up to one status per clause (conformance.session), tested directly."""

from __future__ import annotations

import pytest

from conformance.clauses import Clause
from conformance.session import CertificationSession, CheckOutcome, CheckResult

CLAUSE = Clause("BR-TEST-001", "002", "A section", "a clause for these tests")


def result(outcome: CheckOutcome, *, blamed: tuple[str, ...] = (), reason: str = "", **extra: object) -> CheckResult:
    return CheckResult(f"check_{outcome}_{len(reason)}", (CLAUSE.id,), outcome, blamed, reason, **extra)  # type: ignore[arg-type]


def status_of(*results: CheckResult) -> str:
    run = CertificationSession()
    for item in results:
        run.add(item)
    return run.clause_results([CLAUSE])[0].status


def test_a_blame_fails_the_clause_whatever_else_passed() -> None:
    assert status_of(result("passed"), result("failed", blamed=(CLAUSE.id,), reason="broke it")) == "failed"


def test_a_failure_that_blames_another_clause_leaves_this_one_passed() -> None:
    assert status_of(result("passed"), result("failed", blamed=("BR-OTHER-001",))) == "passed"


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        (("passed", "not_checked"), "passed"),
        (("unverified", "passed"), "passed"),
        (("unverified", "not_implemented"), "unverified"),
        (("not_implemented", "not_checked"), "not_implemented"),
        (("not_checked",), "not_checked"),
        (("skipped",), "not_checked"),
    ],
)
def test_the_strongest_outcome_decides(outcomes: tuple[CheckOutcome, ...], expected: str) -> None:
    assert status_of(*(result(outcome, reason=outcome) for outcome in outcomes)) == expected


def test_a_deviation_counts_only_for_the_clauses_it_names() -> None:
    named = result("deviation", deviates=(CLAUSE.id,))
    other = result("deviation", deviates=("BR-OTHER-001",))
    assert status_of(named, result("passed")) == "deviation"
    assert status_of(other) == "not_checked"


def test_no_check_at_all_is_not_checked() -> None:
    assert status_of() == "not_checked"


def test_unverified_lists_the_members_no_check_could_exercise() -> None:
    run = CertificationSession()
    run.add(result("unverified", reason="text reads only", member="click"))
    (clause,) = run.clause_results([CLAUSE])
    assert (clause.status, clause.members, clause.reasons) == ("unverified", ["click"], ["text reads only"])


def test_a_result_survives_the_trip_through_a_report_property() -> None:
    original = CheckResult("n::id", ("BR-A-001", "BR-B-002"), "failed", ("BR-A-001",), "why", {"flavour": "sync"})
    assert CheckResult.from_property(original.to_property()) == original


def test_the_session_keeps_the_first_profile_and_the_families_it_covers() -> None:
    run = CertificationSession()
    run.add(CheckResult("a", ("BR-X-001",), "passed", profile={"flavour": "async"}))
    run.add(CheckResult("b", ("CO-Y-001",), "passed", profile={"flavour": "sync"}))
    assert run.profile == {"flavour": "async"}
    assert run.prefixes() == {"BR", "CO"}
