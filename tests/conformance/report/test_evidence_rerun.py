"""The evidence rerun: a failed check runs once more, in evidence mode, only for its evidence.

Child certifications of broken drivers (the one check that exposes ``ClickAtOffset``) show that the rerun gives
the failing step a real "before" picture, that a failure that does not repeat is said to be flaky while the
verdict stays failed, that a driver that hung is not rerun, that the check is reported once (terminal, junit,
xdist) and its evidence kept once, and that a run without a certificate reruns nothing: each run's factory calls
are counted in a file.
"""

from __future__ import annotations

import base64
import io
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from conformance.evidence import NO_BEFORE
from conformance.evidence.rerun import (
    BUDGET_SHARE,
    HUNG,
    NO_CAMERA,
    NO_STEP,
    OVER_BUDGET,
    RERUN_PICTURE_NOTE,
    EvidenceRerun,
    Failure,
    RerunResult,
    what_the_rerun_adds,
    why_not_rerun,
    with_rerun,
    within_budget,
)
from conformance.html_report import render_certificate
from conformance.session import CheckResult
from tests.broken.certification import REPOSITORY, Certification, certify, run_child
from tests.broken.evidence_drivers import COUNT_VARIABLE

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run]

CHECK = "test_click_at_uses_the_point_button_and_click_count"
NODEID = f"conformance/contracts/browser/check_pointer.py::{CHECK}"
# The certificate's ID for the check: from the contracts package, wherever the kit is installed.
CHECK_ID = f"contracts/browser/check_pointer.py::{CHECK}"
DRIVERS = "tests.broken.evidence_drivers"


def _evidence_of(certification: Certification) -> dict[str, Any]:
    assert certification.certificate is not None, certification.tail()
    evidence: dict[str, dict[str, Any]] = certification.certificate["evidence"]
    assert list(evidence) == [CHECK_ID], list(evidence)
    return evidence[CHECK_ID]


def _jpeg(data_url: str) -> Image.Image:
    assert data_url.startswith("data:image/jpeg;base64,"), data_url[:40]
    picture = Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1])))
    picture.load()
    assert picture.format == "JPEG"
    return picture


@pytest.fixture
def factory_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file the counted drivers' factories note each call in (the child inherits the variable)."""
    calls = tmp_path / "factory-calls.txt"
    monkeypatch.setenv(COUNT_VARIABLE, str(calls))
    return calls


def _count(calls: Path) -> int:
    return len(calls.read_text("utf-8").splitlines()) if calls.exists() else 0


# ----- what the rerun adds, from its results ---------------------------------------------------------------


def _result(outcome: str, blamed: tuple[str, ...] = ("BR-PTR-001",), reason: str = "landed elsewhere") -> CheckResult:
    return CheckResult(CHECK_ID, ("BR-PTR-001", "BR-PTR-002"), outcome, blamed, reason)  # type: ignore[arg-type]


def _seen(*members: str, before: dict[str, Any] | None = None) -> dict[str, Any]:
    calls = [{"member": member} for member in members]
    return {"calls": calls, "omitted_calls": 0, "before": before or {"image": None, "note": NO_BEFORE}}


PICTURE = {"image": "data:image/jpeg;base64,/9j/AAAA", "note": ""}
PICTURED = _seen("navigate", "click_at", before=PICTURE)
FIRST = Failure.of(_result("failed"), _seen("navigate", "click_at"), hung=False)


def test_a_repeated_failure_gives_its_before_picture() -> None:
    rerun = RerunResult(
        _result("failed", reason="landed elsewhere again"), _seen("navigate", "click_at", before=PICTURE)
    )
    added = what_the_rerun_adds(FIRST, rerun, 1.5)
    assert added["rerun"]["repeated"] is True and added["rerun"]["seconds"] == 1.5
    assert added["before"] == {"image": PICTURE["image"], "note": RERUN_PICTURE_NOTE}


@pytest.mark.parametrize(
    ("rerun", "says"),
    [
        (RerunResult(_result("passed", ()), None), "the check passed the second time"),
        (
            RerunResult(_result("failed", ("BR-PTR-002",)), _seen("navigate", "click_at", before=PICTURE)),
            "(BR-PTR-002)",
        ),
        (
            RerunResult(_result("failed"), _seen("navigate", "navigate", "click_at", before=PICTURE)),
            "at step 3 (click_at)",
        ),
        (RerunResult(_result("failed"), PICTURED, hung=True), "the driver hung"),
        (RerunResult(None, None), "the rerun reported no result"),
    ],
)
def test_a_failure_that_does_not_repeat_the_same_way_keeps_no_rerun_picture(rerun: RerunResult, says: str) -> None:
    added = what_the_rerun_adds(FIRST, rerun, 2.0)
    assert "before" not in added
    assert added["rerun"]["repeated"] is False
    assert added["rerun"]["note"].startswith("the failure did not repeat on a rerun: ")
    assert says in added["rerun"]["note"], added["rerun"]["note"]


def test_a_hung_driver_one_without_screenshot_and_a_check_without_steps_are_not_rerun() -> None:
    assert why_not_rerun(FIRST, can_picture=True) is None
    assert why_not_rerun(Failure.of(_result("failed"), _seen("click_at"), hung=True), can_picture=True) == HUNG
    assert why_not_rerun(FIRST, can_picture=False) == NO_CAMERA
    # A check whose calls were not logged (or that made none) has no step to picture: a rerun would show nothing.
    assert why_not_rerun(Failure.of(_result("failed"), _seen(), hung=False), can_picture=True) == NO_STEP


def test_the_rerun_changes_only_the_before_picture_and_adds_its_finding() -> None:
    first = {**_seen("click_at"), "after": PICTURE, "point": [1, 2]}
    merged = with_rerun(first, '{"rerun": {"repeated": true, "note": "n", "seconds": 1}, "before": {"image": "x"}}')
    assert merged == {**first, "before": {"image": "x"}, "rerun": {"repeated": True, "note": "n", "seconds": 1}}
    assert first["before"]["note"] == NO_BEFORE  # the first run's evidence itself is not changed


def test_the_page_says_what_the_rerun_found_and_where_the_picture_came_from() -> None:
    from tests.conformance.report.test_certificate_html_page import _built

    built = _built()
    seen = built["evidence"]["m::check_a"]
    seen["before"] = {"image": "data:image/jpeg;base64,/9j/AAAA", "note": RERUN_PICTURE_NOTE}
    seen["rerun"] = {"repeated": False, "note": "the failure did not repeat on a rerun: it passed", "seconds": 3.0}
    page = render_certificate(built)
    assert '<p class="rerun not-repeated">the failure did not repeat on a rerun: it passed' in page
    caption = "before the failing step (the red ring marks (1, 2), where the last pointer step aimed)"
    assert f"<figcaption>{caption}: {RERUN_PICTURE_NOTE}</figcaption>" in page


# ----- real certifications ---------------------------------------------------------------------------------


def test_a_flaky_failure_is_still_failed_and_said_not_to_repeat(tmp_path: Path) -> None:
    certification = certify(f"{DRIVERS}:flaky_click_at_offset", tmp_path, selection=CHECK, evidence=None)
    assert certification.with_status("failed") == ["BR-PTR-001"], certification.tail()
    assert certification.certificate is not None and certification.certificate["verdict"] == "does not conform"
    seen = _evidence_of(certification)
    assert seen["rerun"]["repeated"] is False, seen["rerun"]
    assert seen["rerun"]["note"] == "the failure did not repeat on a rerun: the check passed the second time"
    assert seen["before"] == {"image": None, "note": NO_BEFORE}  # the rerun's picture is not of this failure
    page = (tmp_path / "certificate.html").read_text("utf-8")
    assert '<p class="rerun not-repeated">the failure did not repeat on a rerun: the check passed' in page


def test_a_driver_that_hung_is_not_rerun(tmp_path: Path, factory_calls: Path) -> None:
    certification = certify(
        f"{DRIVERS}:hanging_click_at", tmp_path, selection=CHECK, options=["--driver-timeout=5"], evidence=None
    )
    assert "BR-PTR-001" in certification.with_status("failed"), certification.tail()  # a hang blames them all
    seen = _evidence_of(certification)
    assert seen["rerun"] == {"repeated": None, "note": HUNG, "seconds": 0.0}
    assert _count(factory_calls) == 2, "the probe and the check's one run, no rerun"


def test_a_driver_without_screenshot_is_not_rerun(tmp_path: Path) -> None:
    certification = certify(f"{DRIVERS}:click_at_offset_without_screenshot", tmp_path, selection=CHECK, evidence=None)
    assert _evidence_of(certification)["rerun"]["note"] == NO_CAMERA


def test_the_rerun_is_reported_once_under_xdist_and_its_evidence_kept_once(tmp_path: Path, factory_calls: Path) -> None:
    junit = tmp_path / "junit.xml"
    options = ["-p", "xdist", "-n", "1", f"--junitxml={junit}"]
    certification = certify(
        f"{DRIVERS}:counted_click_at_offset", tmp_path / "out", selection=CHECK, options=options, evidence=None
    )
    assert certification.with_status("failed") == ["BR-PTR-001"], certification.tail()
    # The controller's probe, the worker's probe, the check, and its rerun.
    assert _count(factory_calls) == 4, factory_calls.read_text("utf-8")
    assert "1 failed" in certification.output and certification.output.count(f"FAILED {NODEID}") == 1
    cases = ElementTree.parse(junit).getroot().iter("testcase")
    assert [(case.get("name"), len(case.findall("failure"))) for case in cases] == [(CHECK, 1)]
    seen = _evidence_of(certification)
    assert seen["rerun"]["repeated"] is True, seen["rerun"]
    assert [call["member"] for call in seen["calls"]] == ["click_at"]  # the first run's calls, once
    assert seen["before"]["note"] == RERUN_PICTURE_NOTE
    assert _jpeg(seen["before"]["image"]).width <= 640


def test_first_run_evidence_and_a_run_without_certificate_rerun_nothing(tmp_path: Path, factory_calls: Path) -> None:
    certification = certify(
        f"{DRIVERS}:counted_click_at_offset", tmp_path, selection=CHECK, options=["--evidence=first-run"], evidence=None
    )
    seen = _evidence_of(certification)
    assert "rerun" not in seen and seen["before"] == {"image": None, "note": NO_BEFORE}
    assert _count(factory_calls) == 2
    factory_calls.unlink()
    command = [sys.executable, "-m", "pytest", f"--driver={DRIVERS}:counted_click_at_offset", "-q", "-k", CHECK]
    done = run_child([*command, "-p", "no:cacheprovider"], cwd=REPOSITORY, timeout=600)
    assert "1 failed" in done.stdout, done.stdout[-2000:]
    # A serial run checks in one worker of its own: the controller's probe, the worker's probe and the check.
    assert _count(factory_calls) == 3, "without a certificate a failed check is run once"


def test_evidence_without_a_certificate_is_a_usage_error() -> None:
    done = run_child(
        [sys.executable, "-m", "pytest", "--evidence=rerun", "-p", "no:cacheprovider"], cwd=REPOSITORY, timeout=120
    )
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout[-1000:] + done.stderr[-1000:]
    assert "--evidence=rerun: evidence is written only into a certificate; give --certificate" in done.stderr


def test_reruns_stay_within_their_share_of_the_run() -> None:
    assert within_budget(0.0, 0.0, BUDGET_SHARE), "the first failing check is always rerun"
    assert within_budget(1.0, 20.0, 0.05) and not within_budget(1.01, 20.0, 0.05)
    assert within_budget(1e6, 1.0, None), "rerun-all has no budget"
    assert EvidenceRerun.for_mode("rerun").budget_share == BUDGET_SHARE == 0.05
    assert EvidenceRerun.for_mode("rerun-all").budget_share is None


def test_past_the_budget_a_check_is_not_rerun_and_rerun_all_lifts_it(tmp_path: Path) -> None:
    # Every pointer check fails for this driver, a few checks apart: after the first rerun (about one check's time)
    # the reruns have taken far more than 5% of a run only a few checks long, so the others are not rerun.
    budgeted = certify(
        "tests.broken.drivers:click_at_offset", tmp_path / "budget", selection="check_pointer", evidence=None
    )
    assert budgeted.certificate is not None, budgeted.tail()
    reruns = [seen["rerun"] for seen in budgeted.certificate["evidence"].values()]
    assert len(reruns) >= 2, reruns
    assert reruns[0]["repeated"] is True, reruns
    assert all(rerun == {"repeated": None, "note": OVER_BUDGET, "seconds": 0.0} for rerun in reruns[1:]), reruns
    everything = certify(
        "tests.broken.drivers:click_at_offset",
        tmp_path / "all",
        selection="check_pointer",
        options=["--evidence=rerun-all"],
        evidence=None,
    )
    assert everything.certificate is not None, everything.tail()
    assert everything.with_status("failed") == budgeted.with_status("failed")
    assert all(seen["rerun"]["repeated"] is True for seen in everything.certificate["evidence"].values())
