"""MCP approvals: pairing, missing callbacks, matching calls, filters, retries off, re-approval.

spec/000 "Mix browser, computer, and ordinary functions"; spec/002 "Mix browser actions with other tools".
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import (
    MCP_TOOL,
    OPEN_MCP_APPROVAL,
    Mode,
    ScenarioRun,
    Setup,
    answering_mcp,
    expect_mcp_policy_followed,
    input_summary,
    load,
    mcp_setup,
    modes,
    run,
)
from conformance.rig import in_flavour


@pytest.mark.clause("RN-MCP-001")
@pytest.mark.parametrize("answer", [True, False])
@pytest.mark.parametrize("mode", modes())
def test_answer_is_paired_with_request_id(answer: bool, mode: Mode) -> None:
    asked: list[str] = []
    outcome = run("mcp-approval", mcp_setup(approve_mcp=answering_mcp(answer, asked)), mode)
    expect(asked == ["apr_1"], "RN-MCP-001", f"callback saw {asked}")
    responses = [item for item in outcome.input_of(1) if item.get("type") == "mcp_approval_response"]
    expect(
        [(item["approval_request_id"], item["approve"]) for item in responses] == [("apr_1", answer)],
        "RN-MCP-001",
        f"approval responses sent: {responses}",
    )
    if answer:
        expect(outcome.error is None, "RN-MCP-001", f"approved run failed: {outcome.error!r}")


@pytest.mark.clause("RN-MCP-002")
@pytest.mark.parametrize("mode", modes())
def test_missing_callback_never_grants(mode: Mode) -> None:
    outcome = run("mcp-approval", mcp_setup(), mode)
    expect(outcome.error is not None, "RN-MCP-002", "an approval request without approve_mcp must stop")
    expect(len(outcome.requests) == 1, "RN-MCP-002", "no approval may be sent")


@pytest.mark.clause("RN-MCP-003")
@pytest.mark.parametrize("mode", modes())
def test_call_must_match_approved_arguments(mode: Mode) -> None:
    outcome = run("mcp-call-mismatch", mcp_setup(approve_mcp=lambda request: True), mode)
    outcome.stopped_before_any_call("RN-MCP-003", "a call with other arguments than approved must stop")


@pytest.mark.clause("RN-MCP-004")
@pytest.mark.parametrize(
    "policy,allowed",
    [(None, False), ("always", False), ({"always": {}}, False), ("never", True), ({"never": {}}, True)],
    ids=["default", "always", "empty-always", "never", "empty-never"],
)
@pytest.mark.parametrize("mode", modes())
def test_unapproved_call_follows_policy(policy: Any, allowed: bool, mode: Mode) -> None:
    expect_mcp_policy_followed("RN-MCP-004", policy, allowed, mode)


@pytest.mark.clause("RN-MCP-005")
@pytest.mark.parametrize("mode", modes())
def test_no_automatic_retry_with_mcp(mode: Mode) -> None:
    setup = mcp_setup()
    setup.max_retries = 2
    outcome = run("mcp-http-error", setup, mode)
    expect(outcome.error is not None, "RN-MCP-005", "an HTTP 500 must stop an MCP run")
    expect(len(outcome.requests) == 1, "RN-MCP-005", f"{len(outcome.requests)} attempts for one request")


@pytest.mark.clause("RN-MCP-005")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_retry_happens_without_mcp(mode: Mode) -> None:
    # Control for the check above: the same cassette is retried when no MCP tool is declared.
    setup = Setup()
    setup.max_retries = 2
    outcome = run("mcp-http-error", setup, mode)
    expect(len(outcome.requests) == 2 and outcome.error is None, "RN-MCP-005", "the client should retry once")


@pytest.mark.clause("RN-MCP-006")
@pytest.mark.parametrize("mode", modes())
def test_open_approval_is_asked_again_before_first_request(mode: Mode) -> None:
    events: list[str] = []

    def approve(request: Any) -> bool:
        events.append(f"asked:{request.id}:requests={len(events)}")
        return False

    setup = mcp_setup(approve_mcp=approve).with_params(input=OPEN_MCP_APPROVAL)
    outcome = run("mcp-reapproval", setup, mode).finished("RN-MCP-006")
    expect(events == ["asked:apr_0:requests=0"], "RN-MCP-006", f"re-approval calls: {events}")
    outcome.expect_first_approval_refused("RN-MCP-006")


@pytest.mark.clause("RN-MCP-006")
@pytest.mark.parametrize("mode", modes())
def test_open_approval_without_callback_stops_before_request(mode: Mode) -> None:
    outcome = run("mcp-reapproval", mcp_setup().with_params(input=OPEN_MCP_APPROVAL), mode)
    expect(outcome.error is not None, "RN-MCP-006", "fresh approval is needed and no callback was given")
    expect(outcome.requests == [] and outcome.checkpoints == [], "RN-MCP-006", "work happened first")


@pytest.mark.clause("RN-MCP-006", "RN-LEDGER-003")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_resume_asks_again_for_open_approvals(mode: Mode) -> None:
    asked: list[str] = []

    def refuse_again(request: Any) -> bool:
        asked.append(f"again:{request.id}")
        return False

    setup = mcp_setup(approve_mcp=answering_mcp(True, asked))
    harness = ScenarioRun(load("mcp-resume"), setup, mode)
    first = harness.run()
    expect(first.error is not None, "RN-MCP-006", "run 1 must fail on the HTTP 500")
    expect(
        first.checkpoints[0]["phase"] == "pending",
        "RN-LEDGER-003",
        "with MCP declared the save before a request is a pending checkpoint",
    )
    boundary = [checkpoint for checkpoint in first.checkpoints if checkpoint["phase"] == "boundary"][-1]
    harness.checkpoints.clear()
    sent_before = len(harness.transport.sent)
    second = harness.run(
        params={"model": "gpt-test", "input": "continue", "tools": [MCP_TOOL]},
        ledger=harness.ledger(resume_from=boundary),
        approve_mcp=in_flavour(mode.flavour, refuse_again),
    )
    expect(second.error is None, "RN-MCP-006", f"resume failed: {second.error!r}")
    expect(asked == ["apr_1", "again:apr_1"], "RN-MCP-006", f"approval calls: {asked}")
    resumed = input_summary(harness.transport.sent[sent_before].body["input"])  # type: ignore[index,arg-type]
    expect("mcp_approval_response:apr_1:False" in resumed, "RN-MCP-006", f"resumed input: {resumed}")
