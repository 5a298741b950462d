"""Through the Node bridge, the browser suite catches each deliberate defect of a JavaScript driver on its clause.

Each case certifies one factory of tests/broken/node/broken.mjs (the reference Node driver with exactly one
defect) in a child pytest run, restricted with ``-k`` to the checks that exercise the defect, and reads its
certificate: every expected clause must be ``failed`` and nothing unrelated may fail. The last two cases are a
driver that crashes the Node host and one that never settles: each must fail its check with a reason that says
so, and the run must finish.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.broken.certification import certify

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]

BROKEN = "node:tests/broken/node/broken.mjs"
SDK = "BR-SDK-001"
CLICK = "test_click_activates_exactly_the_referenced_control"


@dataclass(frozen=True)
class Case:
    factory: str
    checks: str
    expected: tuple[str, ...]
    related: tuple[str, ...] = ()
    reason: str = ""  # text the first expected clause's reason must contain
    options: tuple[str, ...] = ()


DEFECTS = (
    Case("credentialsInStateUrl", "test_credentials_in_a_url_are_never_reported", ("BR-URL-001",)),
    Case("duplicateRefs", "test_read_page_reports_the_form", ("BR-READ-005",), (SDK,)),
    Case("pageTextWithElements", "test_page_text_is_reported_intact", ("BR-READ-013",), (SDK,)),
    Case("redirectFollowed", "test_a_navigation_redirected_away_is_stopped", ("BR-NET-003",)),
    Case("ignoresCancellation", "test_an_already_cancelled_call_has_no_effect", ("BR-CANCEL-001",)),
    Case(
        "waitForReturnsAtOnce",
        "test_wait_for_finds_text_that_appears_late or test_wait_for_absent_text_fails_after_about_its_timeout",
        ("BR-ACT-009", "BR-ACT-010"),
    ),
    Case("scrollIgnoresDirection", "test_scroll_moves_the_page_in_each_direction", ("BR-ACT-007",)),
    Case("zoomReturnsWholeViewport", "test_zoom_returns_exactly_the_requested_region", ("BR-IMG-004",), (SDK,)),
    Case("diagnosticsIgnoreLimit", "test_console_diagnostics_are_bounded_and_filtered", ("BR-DIAG-002",)),
    Case("uploadGrantReusable", "test_an_upload_grant_is_honoured_once", ("BR-FILE-005",)),
    Case("clickEndsTheHost", CLICK, ("BR-ACT-002",), ("BR-ACT-", SDK), reason="the Node host exited with status 3"),
    Case(
        "clickHangs",
        CLICK,
        ("BR-ACT-002",),
        ("BR-ACT-", SDK),
        reason="did not return within 5 s",
        options=("--driver-timeout=5",),
    ),
)


def _allowed(case: Case, clause_id: str) -> bool:
    return clause_id in case.expected or any(
        clause_id.startswith(other) if other.endswith("-") else clause_id == other for other in case.related
    )


@pytest.mark.parametrize("case", DEFECTS, ids=lambda case: case.factory)
def test_the_suite_blames_the_broken_clause_of_a_javascript_driver(case: Case, tmp_path: Path) -> None:
    run = certify(f"{BROKEN}#{case.factory}", tmp_path, selection=case.checks, options=case.options)
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    failed = run.with_status("failed")
    missed = [clause_id for clause_id in case.expected if clause_id not in failed]
    assert not missed, f"{case.factory}: not failed {missed}; failed: {failed}\n{run.tail(15)}"
    unrelated = [clause_id for clause_id in failed if not _allowed(case, clause_id)]
    assert not unrelated, f"{case.factory}: unrelated clauses failed:\n{run.reasons(unrelated)}"
    if case.reason:
        assert case.reason in run.reasons(case.expected[:1]), run.reasons(case.expected[:1])
    assert "openai (npm)" in run.profile().get("software", {}), run.profile()
    assert run.profile().get("flavour") == "async", run.profile()


def test_a_javascript_drivers_failing_check_has_its_calls_and_a_picture_from_before_the_failing_step(
    tmp_path: Path,
) -> None:
    # A check calls a JavaScript driver through the Node SDK; those calls once went unlogged, so the evidence
    # listed none and the rerun that takes the "before" picture was skipped as "made no call through its subject".
    check = "test_scroll_moves_the_page_in_each_direction"
    run = certify(f"{BROKEN}#scrollIgnoresDirection", tmp_path, selection=check, evidence=None)
    assert run.with_status("failed") == ["BR-ACT-007"], run.tail(15)
    assert run.certificate is not None
    (evidence,) = run.certificate["evidence"].values()
    assert [call["member"] for call in evidence["calls"]] == ["scroll", "scroll"], evidence["calls"]
    assert "scroll" in evidence["calls"][-1]["driver_calls"]
    assert evidence["rerun"]["repeated"] is True, evidence["rerun"]
    assert str(evidence["before"]["image"]).startswith("data:image/"), evidence["before"]
