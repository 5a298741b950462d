"""Computer exploration finds, shrinks and reports each defect that shows only over a sequence of actions.

Every case certifies one driver from ``tests/broken/computer_sequence_drivers.py`` (the reference computer driver
with one defect that needs an earlier action on the same driver) in a child pytest run, as a driver author's run
would: the exploration check alone with the default budget and the seed derived from the driver, which must fail
exactly the intended clause, shrink the sequence to at most four actions, say how to replay it, and hold that replay
as its evidence (one action per numbered step); and every other computer check, which must pass the driver (each of
them gives its action to a fresh driver, so the defect never shows). The reference driver must pass exploration.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.broken.certification import Certification, SequenceCase, certify, exploration_finding
from tests.desktops import needs_x
from tests.tiers import THOROUGH, tiered

pytestmark = [needs_x, pytest.mark.desktop, pytest.mark.child_run]

MODULE = "tests.broken.computer_sequence_drivers"
EXPLORATION = "test_random_action_sequences_keep_the_documented_rules"
MOST_STEPS = 4


CASES = (
    SequenceCase("release_swallowed_after_a_drag", "CO-CLICK-001"),
    SequenceCase("moves_drift", "CO-MOVE-001"),
    SequenceCase("scroll_flips_after_a_drag", "CO-SCROLL-001"),
    SequenceCase("modifier_stuck_after_a_refused_chord", "CO-KEY-001"),
)


def _certify(driver: str, directory: Path, selection: str, options: tuple[str, ...] = ()) -> Certification:
    return certify(driver, directory, selection=selection, options=options, option="--computer-driver")


# Three of the four in the default tier; the slowest to find is thorough (tests/tiers.py).
@pytest.mark.parametrize("case", tiered(CASES, ("release_swallowed_after_a_drag",), lambda case: case.factory))
def test_exploration_finds_and_shrinks_the_sequence_defect(case: SequenceCase, tmp_path: Path) -> None:
    found = exploration_finding(_certify(f"{MODULE}:{case.factory}", tmp_path, EXPLORATION), EXPLORATION)
    assert found.clause == case.clause, f"{case.factory}: exploration blamed {found.clause}: {found.reason}"
    assert len(found.steps) <= MOST_STEPS, f"{case.factory}: not shrunk to {MOST_STEPS} steps: {found.reason}"
    # The evidence is the replay of the numbered steps on the check's own driver: one action per step, in order.
    members = [step.split(". ", 1)[1].split("(", 1)[0] for step in found.steps]
    assert found.called == members, (found.called, found.reason)


# Thorough: it shows the defects need exploration, not that exploration or the examples work.
@THOROUGH
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.factory)
def test_the_example_checks_pass_the_sequence_defect(case: SequenceCase, tmp_path: Path) -> None:
    run = _certify(f"{MODULE}:{case.factory}", tmp_path, f"not {EXPLORATION}")
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    failed = run.with_status("failed")
    assert not failed, f"{case.factory}: an example check saw the sequence defect:\n{run.reasons(failed)}"
    assert case.clause in run.with_status("passed"), run.tail()


def test_the_seed_in_a_certificate_replays_its_finding(tmp_path: Path) -> None:
    driver = f"{MODULE}:moves_drift"
    first = exploration_finding(_certify(driver, tmp_path / "first", EXPLORATION), EXPLORATION)
    again = exploration_finding(
        _certify(driver, tmp_path / "again", EXPLORATION, (f"--explore-seed={first.seed}",)), EXPLORATION
    )
    assert (again.clause, again.steps, again.seed) == (first.clause, first.steps, first.seed)


# Thorough: CI certifies the reference computer driver, exploration included, on both desktops.
@THOROUGH
def test_the_reference_driver_keeps_every_rule_over_sequences(tmp_path: Path) -> None:
    run = _certify("reference.computer:sync_factory", tmp_path, EXPLORATION)
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    assert run.with_status("failed") == [], run.reasons(run.with_status("failed"))
    assert "CO-DRAG-001" in run.with_status("passed"), run.tail()
