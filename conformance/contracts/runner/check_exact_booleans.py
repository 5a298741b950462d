"""Exactly True, never merely truthy: every runner callback and option whose documented value is a Boolean.

``confirm`` and ``url_policy`` (TS-CONF-004) and the computer approvals (RN-SAFETY-003, TS-COMP-003/004) are
checked where they live; this module feeds truthy non-Booleans to the rest: the Decisions ``verify`` callback,
``approve_mcp``, the Decisions candidate ``done`` flag and the ``computer`` flag of ``early_execution``.

spec/000 "Selecting guarded actions with Decisions" (only verify returning exactly True gives verified; exactly
one candidate has done True), "Mix browser, computer, and ordinary functions" (approve_mcp returns exactly True
or False) and "Choose which tools can run early" (a separate computer Boolean; invalid policies fail at
construction).
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance import rig
from conformance.assertions import expect
from conformance.contracts._answers import TRUTHY
from conformance.contracts.runner._node_scenario import runner_with_computer
from conformance.contracts.runner._scenario import Mode, mcp_setup, modes, run
from conformance.flavours import NODE, Flavour
from conformance.probes import computer_probe
from conformance.rig.decisions import flavours, run_decisions


@pytest.mark.clause("RN-DEC-001")
@pytest.mark.parametrize("answer", sorted(TRUTHY))
@pytest.mark.parametrize("flavour", flavours())
def test_truthy_verify_never_verifies(flavour: Flavour, answer: str) -> None:
    value = TRUTHY[answer]
    outcome = run_decisions("decisions-act-then-done", flavour, verify=lambda observation: value)
    status = outcome.result.get("status") if isinstance(outcome.result, dict) else None
    expect(status != "verified", "RN-DEC-001", f"verify returning {value!r} produced status 'verified'")


@pytest.mark.clause("RN-MCP-007")
@pytest.mark.parametrize("answer", sorted(TRUTHY))
@pytest.mark.parametrize("mode", modes(ledger=False, eager=False))
def test_truthy_mcp_answer_never_grants(mode: Mode, answer: str) -> None:
    value = TRUTHY[answer]
    setup = mcp_setup(approve_mcp=lambda request: value)
    outcome = run("mcp-approval", setup, mode)
    granted = [
        item
        for body in outcome.bodies
        for item in body.get("input", [])
        if isinstance(item, dict) and item.get("type") == "mcp_approval_response" and item.get("approve") is True
    ]
    expect(not granted, "RN-MCP-007", f"approve_mcp returning {value!r} sent an approval: {granted}")
    expect(outcome.timeline.calls() == [], "RN-MCP-007", f"local calls ran: {outcome.timeline.calls()}")


@pytest.mark.clause("RN-DEC-009")
@pytest.mark.parametrize("answer", sorted(TRUTHY))
@pytest.mark.parametrize("flavour", flavours())
def test_truthy_done_flag_is_not_a_done_candidate(flavour: Flavour, answer: str) -> None:
    """A candidate marked ``done: 1`` without an executor is neither a done candidate nor an action: the list
    has no candidate with done True, so it must be refused before any request."""
    value = TRUTHY[answer]
    outcome = run_decisions("decisions-done", flavour, done=value)
    expect(
        outcome.result is None and outcome.requests == [],
        "RN-DEC-009",
        f"done={value!r} was taken as the done candidate: {outcome.result!r}, {len(outcome.requests)} request(s)",
    )


@pytest.mark.clause("RN-EARLY-007")
@pytest.mark.parametrize("answer", sorted(TRUTHY))
@pytest.mark.parametrize("flavour", flavours())
def test_truthy_computer_flag_fails_construction(flavour: Flavour, answer: str) -> None:
    # A registered computer, so the only thing wrong with the policy is the flag's type.
    def build(policy: dict[str, Any]) -> object:
        if flavour == NODE:
            return runner_with_computer(policy)
        computer = rig.computer_toolset(flavour, computer_probe(flavour))
        return rig.build_runner(flavour, computer=computer, early_execution=policy)

    build({"functions": [], "computer": True})
    try:
        build({"functions": [], "computer": TRUTHY[answer]})
    except (TypeError, ValueError):
        return
    expect(False, "RN-EARLY-007", f"early_execution computer={TRUTHY[answer]!r} was accepted at construction")
