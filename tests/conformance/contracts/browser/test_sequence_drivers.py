"""Exploration finds, shrinks and reports each defect that shows only over a sequence of members.

Every case certifies one driver from ``tests/broken/sequence_drivers.py`` (the reference driver with one defect that
needs several steps to show) in a child pytest run of the exploration check alone, with the default budget and the
seed derived from the driver, as a driver author's run would, and reads the certificate back. A case passes only
when exploration failed exactly the intended clause, shrank the failing sequence to at most five steps, said how to
replay it (the seed), and its evidence holds that replay: one call per numbered step.

The single-situation checks pass these drivers (their defects need a second tab, a tab closed earlier or a switch
first); ``tests.broken.sequence_drivers`` says how each defect arises. Variants the documents allow (from
``tests/broken/drivers.py``) must pass exploration: the model must not judge the reference driver's habits.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.broken.certification import (
    Certification,
    ExplorationFinding,
    SequenceCase,
    certify,
    exploration_finding,
)
from tests.tiers import THOROUGH, tiered

pytestmark = [pytest.mark.child_run, pytest.mark.browser, pytest.mark.node]

MODULE = "tests.broken.sequence_drivers"
EXPLORATION = "test_random_sequences_keep_the_documented_invariants"
MOST_STEPS = 5


CASES: tuple[SequenceCase, ...] = (
    SequenceCase("reuses_closed_tab_ids", "BR-TAB-006"),
    SequenceCase("closed_tab_ids_still_accepted", "BR-TAB-005"),
    SequenceCase("named_navigation_after_a_switch", "BR-NAV-002"),
    SequenceCase("background_close_moves_the_active_flag", "BR-TAB-008"),
    SequenceCase("navigation_notice_names_the_active_tab", "BR-OBS-006"),
    SequenceCase("background_close_notice_names_the_active_tab", "BR-OBS-007"),
    SequenceCase("dialog_notices_name_the_first_tab", "BR-DLG-004"),
)


def reported(run: Certification) -> ExplorationFinding:
    return exploration_finding(run, EXPLORATION)


# Two of the seven in the default tier (a reused tab ID, a notice naming a tab); the rest thorough (tests/tiers.py).
FOUND_IN_THE_THOROUGH_TIER = (
    "background_close_moves_the_active_flag",
    "closed_tab_ids_still_accepted",
    "named_navigation_after_a_switch",
    "background_close_notice_names_the_active_tab",
    "dialog_notices_name_the_first_tab",
)


@pytest.mark.parametrize("case", tiered(CASES, FOUND_IN_THE_THOROUGH_TIER, lambda case: case.factory))
def test_exploration_finds_and_shrinks_the_sequence_defect(case: SequenceCase, tmp_path: Path) -> None:
    run = certify(f"{MODULE}:{case.factory}", tmp_path, selection=EXPLORATION)
    found = reported(run)
    assert found.clause == case.clause, f"{case.factory}: exploration blamed {found.clause}: {found.reason}"
    assert len(found.steps) <= MOST_STEPS, f"{case.factory}: not shrunk to {MOST_STEPS} steps: {found.reason}"
    # The evidence is the replay of the numbered steps on the check's own driver: one call per step, in order.
    members = [step.split(". ", 1)[1].split("(", 1)[0] for step in found.steps]
    assert found.called == members, (found.called, found.reason)


def test_a_member_failing_from_the_start_page_is_not_blamed_on_a_tab_rule(tmp_path: Path) -> None:
    # One defect, its own checks' business: exploration's one-step "sequence" says nothing about tabs.
    run = certify(f"{MODULE}:page_text_needs_a_main_element", tmp_path, selection=EXPLORATION)
    assert run.certificate is not None, run.tail()
    assert not run.with_status("failed"), run.reasons(run.with_status("failed"))
    reasons = run.reasons(run.with_status("unverified"))
    assert "BR-TAB-008" in run.with_status("unverified"), run.tail(15)
    assert "could not get past get_page_text(tab_id=null): it fails on the start page as the first step" in reasons


# A JavaScript driver is explored through the Node bridge as a Python one is: the same steps, the same finding.
@pytest.mark.node
def test_exploration_drives_a_javascript_driver_over_the_bridge(tmp_path: Path) -> None:
    run = certify("node:tests/broken/node/sequence.mjs#namedNavigationAfterASwitch", tmp_path, selection=EXPLORATION)
    found = reported(run)
    assert found.clause == "BR-NAV-002", found.reason
    assert len(found.steps) <= MOST_STEPS, found.reason
    assert found.called[-1] == "navigate", found.called


# Thorough: the computer exploration's replay test shows the same seed handling in the default tier, in a third
# of the time.
@THOROUGH
def test_the_seed_in_a_certificate_replays_its_finding(tmp_path: Path) -> None:
    driver = f"{MODULE}:reuses_closed_tab_ids"
    first = reported(certify(driver, tmp_path / "first", selection=EXPLORATION))
    again = reported(
        certify(driver, tmp_path / "again", selection=EXPLORATION, options=(f"--explore-seed={first.seed}",))
    )
    assert (again.clause, again.steps, again.seed) == (first.clause, first.steps, first.seed)


# Behaviour the documents leave to the driver: exploration must not fail any of it. (tests.broken.drivers'
# navigate_returns_before_load cannot navigate a blank tab, which exploration opens; its variant here can.)
ALLOWED = (
    "tests.broken.drivers:new_tab_stays_in_background",
    "tests.broken.drivers:full_url_in_state",
    "tests.broken.drivers:title_left_for_the_sdk",
    f"{MODULE}:returns_before_load_from_any_page",
)


# Two in the default tier (the two about when a call returns and which tab is active); the state-text ones thorough.
@pytest.mark.parametrize(
    "factory",
    tiered(ALLOWED, ("full_url_in_state", "title_left_for_the_sdk"), lambda factory: factory.rsplit(":", 1)[1]),
)
def test_exploration_accepts_what_the_documents_allow(factory: str, tmp_path: Path) -> None:
    run = certify(factory, tmp_path, selection=EXPLORATION)
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    failed = run.with_status("failed")
    assert not failed, f"{factory} is allowed by the documents, yet exploration failed:\n{run.reasons(failed)}"
    assert "BR-TAB-006" in run.with_status("passed"), run.tail()


def test_explore_zero_turns_exploration_off(tmp_path: Path) -> None:
    run = certify("reference.browser:sync_factory", tmp_path, selection=EXPLORATION, options=("--explore=0",))
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    assert run.with_status("failed") == [] and run.with_status("passed") == [], run.tail()
    assert "exploration is off" in run.output or "1 skipped" in run.output, run.tail()


def test_a_negative_budget_is_a_usage_error(tmp_path: Path) -> None:
    run = certify("reference.browser:sync_factory", tmp_path, selection=EXPLORATION, options=("--explore=-1",))
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.tail()
    assert "cannot be negative" in run.output, run.tail()
