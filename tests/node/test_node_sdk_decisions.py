"""``--node-sdk`` Decisions checks: patched copies of npm ``openai`` that each fail exactly one clause.

Each patch is a textual change (one or more replacements) to a copy of the installed package's Decisions runner, or
of the Responses runner for RN-EARLY-007, selected with ``DRIVERKIT_NODE_OPENAI``; the one check that covers the
behaviour must blame exactly the patched clause, and an unpatched copy must pass the same checks. Also: the
Decisions clauses are really checked in Node (not left "not checked"), and the rig's Node error carries the reason
and receipts.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from openai.lib.decisions_tool_runner import DecisionsToolRunnerError

from conformance.node.sdk.broker import NodeSdk
from conformance.rig.decisions import Action, run_decisions
from tests.node.npm_patches import (
    DECISIONS_MODULE,
    NpmPatch,
    certify,
    patched_copies_fail_exactly_their_clause,
    statuses,
    unpatched_copy_passes,
)

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]

CHECKS = "conformance/contracts/runner/"


PATCHES: dict[str, NpmPatch] = {
    # verify answering any truthy value reports "verified".
    "truthy-verify": NpmPatch(
        DECISIONS_MODULE,
        (("if (verified === true) {", "if (verified) {"),),
        CHECKS + "check_exact_booleans.py::test_truthy_verify_never_verifies",
        "RN-DEC-001",
    ),
    # 256 candidates accepted.
    "candidate-limit": NpmPatch(
        DECISIONS_MODULE,
        (("if (length < 1 || length > 255) {", "if (length < 1 || length > 256) {"),),
        CHECKS + "check_decisions.py::test_candidate_count_limit",
        "RN-DEC-005",
    ),
    # An action chosen on the last allowed request runs.
    "last-step-runs": NpmPatch(
        DECISIONS_MODULE,
        (("if (step === maxSteps - 1) {\n                        stop('step_limit');", "if (false) {"),),
        CHECKS + "check_decisions.py::test_choice_on_last_request_does_not_run",
        "RN-DEC-006",
    ),
    # A truthy done flag makes the done candidate.
    "truthy-done": NpmPatch(
        DECISIONS_MODULE,
        (
            ("(done !== undefined && done !== false && done !== true)) {", "false) {"),
            ("if (done === true) {", "if (done) {"),
        ),
        CHECKS + "check_exact_booleans.py::test_truthy_done_flag_is_not_a_done_candidate",
        "RN-DEC-009",
    ),
    # The documented detail "original" is refused.
    "no-original-detail": NpmPatch(
        DECISIONS_MODULE,
        (("['low', 'high', 'auto', 'original']", "['low', 'high', 'auto']"),),
        CHECKS + "check_decisions_observations.py::test_documented_observation_forms_are_sent_as_given",
        "RN-DEC-010",
    ),
    # The runner keeps the application's observation parts instead of its own copy.
    "no-snapshot": NpmPatch(
        DECISIONS_MODULE,
        (("const captured = structuredClone(entries);", "const captured = entries;"),),
        CHECKS + "check_decisions_observations.py::test_runner_sends_its_own_snapshot",
        "RN-DEC-012",
    ),
    # The selected candidate is reported without its ID before dispatch.
    "anonymous-selection": NpmPatch(
        DECISIONS_MODULE,
        (
            (
                "{ api: 'decisions', stage: 'selection', reason: 'completed', call_id: selectedId }",
                "{ api: 'decisions', stage: 'selection', reason: 'completed', call_id: null }",
            ),
        ),
        CHECKS + "check_decisions_diagnostics.py::test_decisions_reports_the_selected_id_before_dispatch",
        "RN-DIAG-002",
    ),
    # A truthy computer flag is accepted by the Responses runner at construction.
    "truthy-early-computer": NpmPatch(
        "helpers/responses-tool-runner.mjs",
        (("(computer !== undefined && typeof computer !== 'boolean')", "false"),),
        CHECKS + "check_exact_booleans.py::test_truthy_computer_flag_fails_construction",
        "RN-EARLY-007",
    ),
}


test_a_patched_node_decisions_runner_fails_exactly_its_clause = patched_copies_fail_exactly_their_clause(PATCHES)


test_an_unpatched_copy_passes_the_same_checks = unpatched_copy_passes(PATCHES)


def test_the_decisions_suite_checks_the_node_runner(tmp_path: Path) -> None:
    """Every Decisions clause of the three Decisions check files is decided in Node: passed or a known deviation."""
    files = ("check_decisions.py", "check_decisions_observations.py", "check_decisions_diagnostics.py")
    certificate = certify(tmp_path, *(CHECKS + name for name in files))
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
