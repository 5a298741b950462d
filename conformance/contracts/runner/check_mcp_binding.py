"""MCP approvals, continued: what an approval binds (server label, tool name, the request as asked), what never
grants (the model's own approval items, an assistant message claiming consent), tool-name filters, what
re-approval leaves alone, and the pending MCP checkpoint that cannot resume.

spec/000 "Mix browser, computer, and ordinary functions"; spec/002 "Mix browser actions with other tools" and
"Stream and resume".
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import (
    MCP_TOOL,
    OPEN_MCP_APPROVAL,
    Mode,
    ScenarioRun,
    answering_mcp,
    expect_mcp_policy_followed,
    input_summary,
    load,
    mcp_setup,
    modes,
    run,
)

WIKI_TOOL = {"type": "mcp", "server_label": "wiki", "server_url": "https://wiki.example/sse"}


@pytest.mark.clause("RN-MCP-003")
@pytest.mark.parametrize(
    "cassette,tools",
    [("mcp-call-other-name", (MCP_TOOL,)), ("mcp-call-other-server", (MCP_TOOL, WIKI_TOOL))],
    ids=["other-name", "other-server"],
)
@pytest.mark.parametrize("mode", modes())
def test_call_must_match_approved_server_and_name(cassette: str, tools: Any, mode: Mode) -> None:
    outcome = run(cassette, mcp_setup(*tools, approve_mcp=lambda request: True), mode)
    outcome.stopped_before_any_call(
        "RN-MCP-003", f"{cassette}: a call unlike the approved request was accepted", requests=2
    )


@pytest.mark.clause("RN-MCP-012")
@pytest.mark.parametrize("mode", modes())
def test_model_approval_items_never_grant(mode: Mode) -> None:
    asked: list[str] = []
    refused = run("mcp-invented-approval", mcp_setup(approve_mcp=answering_mcp(False, asked)), mode)
    expect(
        ("apr_1", True) not in refused.approvals_sent,
        "RN-MCP-012",
        f"an approval the model wrote was sent as granted: {refused.approvals_sent}",
    )
    expect(refused.timeline.calls() == [], "RN-MCP-012", f"local call ran: {refused.timeline.calls()}")
    expect(refused.error is not None, "RN-MCP-012", "a call on a refused request was accepted")
    unanswered = run("mcp-invented-approval", mcp_setup(), mode)
    expect(unanswered.error is not None, "RN-MCP-012", "without approve_mcp the model's approval was taken")
    expect(len(unanswered.requests) == 1, "RN-MCP-012", f"{len(unanswered.requests)} requests sent, expected 1")


@pytest.mark.clause("RN-MCP-002")
@pytest.mark.parametrize("mode", modes())
def test_assistant_message_is_no_consent(mode: Mode) -> None:
    outcome = run("mcp-approval-with-message", mcp_setup(), mode)
    expect(outcome.error is not None, "RN-MCP-002", "a message claiming consent ended or advanced the run")
    expect(len(outcome.requests) == 1, "RN-MCP-002", f"{len(outcome.requests)} requests sent, expected 1")
    refused = run("mcp-approval-with-message", mcp_setup(approve_mcp=lambda request: False), mode)
    expect(
        refused.approvals_sent[:1] == [("apr_1", False)],
        "RN-MCP-002",
        f"approval sent despite the callback's refusal: {refused.approvals_sent}",
    )


@pytest.mark.clause("RN-MCP-013")
@pytest.mark.parametrize("mode", modes())
def test_callback_edits_change_neither_answer_nor_binding(mode: Mode) -> None:
    def meddle(request: Any) -> bool:
        for name, value in (("id", "apr_forged"), ("server_label", "wiki"), ("name", "fetch"), ("arguments", "{}")):
            # A frozen copy is as good as a detached one.
            with contextlib.suppress(AttributeError, TypeError, ValueError):
                setattr(request, name, value)
        return True

    outcome = run("mcp-approval", mcp_setup(approve_mcp=meddle), mode)
    expect(outcome.error is None, "RN-MCP-013", f"the edited request changed the run: {outcome.error!r}")
    expect(
        outcome.approvals_sent == [("apr_1", True)],
        "RN-MCP-013",
        f"the approval is not paired with the original request: {outcome.approvals_sent}",
    )
    sent = [item for item in outcome.input_of(1) if item.get("type") == "mcp_approval_request"]
    expect(
        [(item.get("id"), item.get("server_label"), item.get("name")) for item in sent]
        == [("apr_1", "docs", "search")],
        "RN-MCP-013",
        f"the replayed approval request carries the callback's edits: {sent}",
    )


@pytest.mark.clause("RN-MCP-014")
@pytest.mark.parametrize(
    "policy,allowed",
    [
        ({"always": {"tool_names": ["search"]}}, False),
        ({"never": {"tool_names": ["search"]}}, True),
        ({"never": {"tool_names": ["fetch"]}}, False),
    ],
    ids=["always-search", "never-search", "never-other-tool"],
)
@pytest.mark.parametrize("mode", modes())
def test_tool_name_filters_are_enforced(policy: Any, allowed: bool, mode: Mode) -> None:
    expect_mcp_policy_followed("RN-MCP-014", policy, allowed, mode)


SETTLED: list[dict[str, Any]] = [
    *OPEN_MCP_APPROVAL,
    {
        "type": "mcp_call",
        "id": "mcp_0",
        "server_label": "docs",
        "name": "search",
        "arguments": "{}",
        "output": "ok",
        "approval_request_id": "apr_0",
        "status": "completed",
    },
    {"type": "mcp_approval_request", "id": "apr_2", "server_label": "docs", "name": "search", "arguments": "{}"},
    {"type": "mcp_approval_response", "approval_request_id": "apr_2", "approve": False},
]


@pytest.mark.clause("RN-MCP-015")
@pytest.mark.parametrize("mode", modes())
def test_completed_and_refused_approvals_are_left_alone(mode: Mode) -> None:
    asked: list[str] = []
    outcome = run(
        "mcp-reapproval", mcp_setup(approve_mcp=answering_mcp(True, asked)).with_params(input=SETTLED), mode
    ).finished("RN-MCP-015")
    expect(asked == [], "RN-MCP-015", f"settled approvals asked again: {asked}")
    sent = input_summary(outcome.input_of(0))
    expect(
        sent == input_summary(SETTLED),
        "RN-MCP-015",
        f"the settled approvals were changed: {sent}",
    )


@pytest.mark.clause("RN-MCP-006")
@pytest.mark.parametrize("mode", modes())
def test_open_approval_is_asked_again_with_a_context_budget(mode: Mode) -> None:
    asked: list[str] = []
    budget = {"max_input_bytes": 100_000, "max_input_images": 5}
    setup = mcp_setup(approve_mcp=answering_mcp(False, asked), context_budget=budget)
    outcome = run("mcp-reapproval", setup.with_params(input=OPEN_MCP_APPROVAL), mode).finished("RN-MCP-006")
    expect(asked == ["apr_0"], "RN-MCP-006", f"re-approval calls with a budget: {asked}")
    outcome.expect_first_approval_refused("RN-MCP-006")


@pytest.mark.clause("RN-LEDGER-003")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_pending_checkpoint_before_a_failed_mcp_request_is_not_resumed(mode: Mode) -> None:
    harness = ScenarioRun(load("mcp-resume"), mcp_setup(approve_mcp=lambda request: True), mode)
    first = harness.run()
    expect(first.error is not None, "RN-LEDGER-003", "run 1 must stop on the HTTP 500")
    last = first.checkpoints[-1] if first.checkpoints else None
    expect(
        last is not None and last["phase"] == "pending",
        "RN-LEDGER-003",
        f"the last save before the failed MCP request is not pending: {last and last['phase']}",
    )
    harness.checkpoints.clear()
    sent_before = len(harness.transport.sent)
    second = harness.run(
        params={"model": "gpt-test", "input": "continue", "tools": [MCP_TOOL]},
        ledger=harness.ledger(resume_from=last),
        approve_mcp=lambda request: True,
    )
    expect(second.error is not None, "RN-LEDGER-003", "the pending MCP checkpoint was resumed")
    expect(len(harness.transport.sent) == sent_before, "RN-LEDGER-003", "a request was sent from it")
