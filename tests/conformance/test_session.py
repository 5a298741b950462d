"""How check results add up to one status per clause (conformance.session), tested directly."""

from __future__ import annotations

import pytest

from conformance.clauses import Clause
from conformance.session import CertificationSession, CheckOutcome, CheckResult, check_id, fix_first

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


# ----- root-cause blame ------------------------------------------------------------------------------------------

ROOT = Clause("BR-ROOT-001", "002", "A section", "the clause others stand on")
LEAF = Clause("BR-LEAF-001", "002", "A section", "a clause judged on top of it")


def statuses(*results: CheckResult) -> dict[str, tuple[str, str | None, str | None]]:
    run = CertificationSession(list(results))
    return {r.clause.id: (r.status, r.why, r.blocked_by) for r in run.clause_results([ROOT, LEAF])}


def test_a_check_requiring_a_failed_clause_is_blocked_by_it() -> None:
    root = CheckResult("c::root", (ROOT.id,), "failed", (ROOT.id,), "broken")
    leaf = CheckResult("c::leaf", (LEAF.id,), "failed", (LEAF.id,), "follows", requires=(ROOT.id,))
    assert statuses(root, leaf) == {
        ROOT.id: ("failed", None, None),
        LEAF.id: ("not_checked", "blocked", ROOT.id),
    }
    # With the required clause passing, the same failure is a finding of its own.
    passing = CheckResult("c::root", (ROOT.id,), "passed")
    assert statuses(passing, leaf)[LEAF.id] == ("failed", None, None)


def test_a_precondition_met_at_the_point_of_use_blames_the_root_and_blocks_the_check() -> None:
    met = CheckResult("c::leaf", (LEAF.id,), "failed", (ROOT.id,), "state rejected", precondition=True)
    assert statuses(met) == {ROOT.id: ("failed", None, None), LEAF.id: ("not_checked", "blocked", ROOT.id)}


def test_checks_requiring_each_other_never_hide_both_failures() -> None:
    first = CheckResult("c::a", (ROOT.id,), "failed", (ROOT.id,), "a", requires=(LEAF.id,))
    second = CheckResult("c::b", (LEAF.id,), "failed", (LEAF.id,), "b", requires=(ROOT.id,))
    found = statuses(first, second)
    assert "failed" in {status for status, _, _ in found.values()}, found


def test_clauses_a_check_never_reached_name_the_clause_it_stopped_at() -> None:
    stopped = CheckResult("dir/check_x.py::test_y", (ROOT.id, LEAF.id), "failed", (ROOT.id,), "broken")
    run = CertificationSession([stopped])
    leaf = run.clause_results([LEAF])[0]
    assert (leaf.status, leaf.why) == ("not_checked", "stopped")
    assert leaf.reasons == ["not reached: check_x.py::test_y stopped at BR-ROOT-001, which failed first"]


def test_a_run_that_ended_early_does_not_call_unrun_clauses_deselected() -> None:
    run = CertificationSession()
    assert run.clause_results([LEAF])[0].reasons[0].startswith("deselected")
    assert run.clause_results([LEAF], complete=False)[0].reasons[0].startswith("the run ended")


@pytest.mark.parametrize(
    ("nodeid", "expected"),
    [
        ("conformance/contracts/browser/check_tabs.py::test_x", "contracts/browser/check_tabs.py::test_x"),
        (
            ".venv/lib/python3.11/site-packages/conformance/contracts/runner/check_loop.py::test_y[sync-plain]",
            "contracts/runner/check_loop.py::test_y[sync-plain]",
        ),
        (
            "../../conformance/contracts/computer/check_keyboard.py::test_z",
            "contracts/computer/check_keyboard.py::test_z",
        ),
        ("tests/test_mine.py::test_own_check", "tests/test_mine.py::test_own_check"),
        ("myconformance/contracts/check_a.py::test_a", "myconformance/contracts/check_a.py::test_a"),
    ],
)
def test_check_ids_are_short_and_the_same_from_any_install(nodeid: str, expected: str) -> None:
    assert check_id(nodeid) == expected


def test_failed_paths_of_one_requirement_are_one_cause_to_fix() -> None:
    redirect = Clause("BR-NET-003", "002", "Restrict URLs", "redirects are stopped")
    link = Clause("BR-NET-004", "000", "Confirmation, navigation, and recovery", "links are not followed")
    alone = Clause("BR-TEST-009", "002", "A section", "a clause of no requirement")
    run = CertificationSession(
        [
            CheckResult("c::redirect", (redirect.id,), "failed", (redirect.id,), "reached"),
            CheckResult("c::redirect_again", (redirect.id,), "failed", (redirect.id,), "reached"),
            CheckResult("c::link", (link.id,), "failed", (link.id,), "reached"),
            CheckResult("c::alone", (alone.id,), "failed", (alone.id,), "broken"),
        ]
    )
    causes = fix_first(run.clause_results([redirect, link, alone]))
    # The path more checks met stands for the requirement; the clause of no requirement stays its own cause.
    assert [(cause.clause.clause.id, cause.same_cause) for cause in causes] == [
        (redirect.id, (link.id,)),
        (alone.id, ()),
    ]
