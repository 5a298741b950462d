"""``--node-sdk`` Decisions checks: the Decisions clauses are really checked in Node (not left "not checked"), and
the rig's Node error carries the reason and receipts.

The patched Decisions runners, each failing exactly its clause, are the decisions family of
tests/node/npm_patch_catalogues.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from openai.lib.decisions_tool_runner import DecisionsToolRunnerError

from conformance.node.sdk.broker import NodeSdk
from conformance.rig.decisions import Action, run_decisions
from tests.node.npm_patches import RUNNER_CHECKS, certify, statuses

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]


def test_the_decisions_suite_checks_the_node_runner(tmp_path: Path) -> None:
    """Every Decisions clause of the three Decisions check files is decided in Node: passed or a known deviation."""
    files = ("check_decisions.py", "check_decisions_observations.py", "check_decisions_diagnostics.py")
    certificate = certify(tmp_path, *(f"{RUNNER_CHECKS}/{name}" for name in files))
    checked = statuses(certificate)
    decisions = {
        clause["id"]: clause["status"]
        for clause in certificate["clauses"]
        if clause["id"].startswith("RN-DEC-") and clause["checks"]
    }
    # RN-DEC-001..008, 010, 011 and 012 (RN-DEC-009 is checked in check_exact_booleans.py).
    assert len(decisions) == 11 and set(decisions.values()) <= {"passed", "deviation"}, decisions
    assert checked["RN-DEC-011"] == "deviation"
    assert checked["RN-DIAG-002"] == "passed"
    assert certificate["exit"] == 0


@pytest.fixture
def broker(monkeypatch: pytest.MonkeyPatch) -> Iterator[NodeSdk]:
    """A Node SDK broker of this test's own, closed after it (the rig would otherwise start the shared one)."""
    sdk = NodeSdk()
    monkeypatch.setattr("conformance.node.sdk.decisions.shared_sdk", lambda: sdk)
    yield sdk
    sdk.close()


def test_a_node_runner_error_reads_as_the_python_one(broker: NodeSdk) -> None:
    outcome = run_decisions("decisions-act-then-done", "node", actions=(Action("review", RuntimeError("x")),))
    assert isinstance(outcome.error, DecisionsToolRunnerError)
    assert outcome.error.reason == "failed"
    assert outcome.error.attempted_candidate_ids == ("review",)
    assert outcome.error.completed_candidate_ids == ()
    assert outcome.executed == ["review"]
