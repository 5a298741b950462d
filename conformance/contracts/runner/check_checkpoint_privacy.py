"""What checkpoints keep of declared server tools: MCP credentials and URLs, Code Interpreter secrets, and the
resumes that the saved identity refuses.

spec/000 "Mix browser, computer, and ordinary functions"; spec/002 "Stream and resume". A checkpoint is
application storage: the credentials a request needs must not land there, and what does land (a URL
fingerprint) must still tie a resume to the same server.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Final

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import CapturedRun, Mode, ScenarioRun, Setup, load, mcp_setup, modes
from conformance.fake_responses import SentRequest

# Canaries: none may appear in any checkpoint, all must reach the API.
MCP_URL: Final = "https://mcp.example/tenant-7f3a/sse?workspace=ws-91c2"
MCP_AUTHORIZATION: Final = "Bearer auth-canary-5d81"
MCP_HEADER_VALUE: Final = "header-canary-0b6e"
SECRET_VALUE: Final = "secret-canary-c4a9"
_DIGEST: Final = re.compile(r"[0-9a-f]{64}")


def _mcp_tool(**changes: Any) -> dict[str, Any]:
    return {
        "type": "mcp",
        "server_label": "docs",
        "server_url": MCP_URL,
        "authorization": MCP_AUTHORIZATION,
        "headers": {"X-Tenant-Key": MCP_HEADER_VALUE},
        **changes,
    }


def _interpreter_tool(secret: str = SECRET_VALUE) -> dict[str, Any]:
    return {
        "type": "code_interpreter",
        "container": {
            "type": "auto",
            "network_policy": {
                "type": "allowlist",
                "allowed_domains": ["api.example"],
                "domain_secrets": [{"domain": "api.example", "name": "API_TOKEN", "value": secret}],
            },
        },
    }


def _mcp_run(mode: Mode) -> tuple[ScenarioRun, CapturedRun]:
    """Run 1 of mcp-resume (an approved request, then HTTP 500) with the canary-carrying MCP declaration."""
    setup = mcp_setup(_mcp_tool(), approve_mcp=lambda request: True)
    harness = ScenarioRun(load("mcp-resume"), setup, mode)
    return harness, harness.run()


def _checkpoints_of(outcome: CapturedRun, clause_id: str) -> list[dict[str, Any]]:
    """The checkpoints a ledger run saved, after failing ``clause_id`` if it saved none."""
    expect(outcome.checkpoints, clause_id, "the ledger run saved no checkpoint")
    return outcome.checkpoints


def _saved_mcp(checkpoint: dict[str, Any]) -> list[dict[str, Any]]:
    return [tool for tool in checkpoint["tools"] if tool.get("type") == "mcp"]


@pytest.mark.clause("RN-MCP-008")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_checkpoints_hold_no_mcp_credentials_or_url(mode: Mode) -> None:
    _, outcome = _mcp_run(mode)
    for checkpoint in _checkpoints_of(outcome, "RN-MCP-008"):
        text = json.dumps(checkpoint)
        leaked = [canary for canary in (MCP_AUTHORIZATION, MCP_HEADER_VALUE, MCP_URL) if canary in text]
        expect(not leaked, "RN-MCP-008", f"a {checkpoint['phase']} checkpoint holds {leaked}")
        saved = _saved_mcp(checkpoint)
        expect(len(saved) == 1, "RN-MCP-008", f"the MCP declaration is not saved once: {checkpoint['tools']}")
        expect(
            "authorization" not in saved[0] and "headers" not in saved[0],
            "RN-MCP-008",
            f"the saved declaration keeps credential fields: {sorted(saved[0])}",
        )
        url = saved[0].get("server_url")
        expect(
            isinstance(url, str) and _DIGEST.search(url) is not None,
            "RN-MCP-008",
            f"the saved server_url is no SHA-256 fingerprint: {url!r}",
        )


@pytest.mark.clause("RN-MCP-009")
@pytest.mark.parametrize("mode", modes())
def test_requests_still_carry_the_original_mcp_declaration(mode: Mode) -> None:
    _, outcome = _mcp_run(mode)
    expect(outcome.requests, "RN-MCP-009", "no request was sent")
    for number, body in enumerate(outcome.bodies):
        sent = [tool for tool in body.get("tools", []) if tool.get("type") == "mcp"]
        expect(
            sent
            and sent[0].get("server_url") == MCP_URL
            and sent[0].get("authorization") == MCP_AUTHORIZATION
            and sent[0].get("headers") == {"X-Tenant-Key": MCP_HEADER_VALUE},
            "RN-MCP-009",
            f"request {number} does not send the declaration as given: {sent}",
        )


def _resume_with(
    run_1: tuple[ScenarioRun, CapturedRun], tool: dict[str, Any], tamper: Any = None
) -> tuple[CapturedRun, list[SentRequest]]:
    """Resume the last boundary of run 1 (its harness and outcome) with ``tool`` declared (the boundary first passed
    to ``tamper``); the resumed run's outcome and the requests it sent."""
    harness, first = run_1
    boundaries = [checkpoint for checkpoint in first.checkpoints if checkpoint["phase"] == "boundary"]
    expect(boundaries, "RN-LEDGER-003", "run 1 saved no boundary to resume from")
    boundary = copy.deepcopy(boundaries[-1])
    if tamper is not None:
        tamper(boundary)
    harness.checkpoints.clear()
    sent_before = len(harness.transport.sent)
    second = harness.run(
        params={"model": "gpt-test", "input": "continue", "tools": [tool]},
        ledger=harness.ledger(resume_from=boundary),
    )
    return second, harness.transport.sent[sent_before:]


@pytest.mark.clause("RN-MCP-010")
@pytest.mark.parametrize(
    "server_url",
    [
        "https://mcp.example/tenant-8e01/sse?workspace=ws-91c2",
        "https://mcp.example/tenant-7f3a/sse?workspace=ws-0000",
    ],
    ids=["other-path", "other-query-value"],
)
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_resume_with_another_mcp_url_is_refused(server_url: str, mode: Mode) -> None:
    second, sent = _resume_with(_mcp_run(mode), _mcp_tool(server_url=server_url))
    expect(second.error is not None, "RN-MCP-010", f"a resume declaring {server_url} was accepted")
    expect(not sent, "RN-MCP-010", f"the refused resume sent {len(sent)} requests")


@pytest.mark.clause("RN-MCP-010")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_resume_with_the_same_mcp_url_and_new_credentials_proceeds(mode: Mode) -> None:
    # Control for the refusals: rotated credentials on the same URL are the documented way to resume.
    second, sent = _resume_with(_mcp_run(mode), _mcp_tool(authorization="Bearer rotated-token"))
    expect(second.error is None, "RN-MCP-010", f"resume on the same URL failed: {second.error!r}")
    expect(len(sent) == 1, "RN-MCP-010", f"the resume sent {len(sent)} requests, expected 1")
    sent_tool = [tool for tool in second.bodies[-1]["tools"] if tool.get("type") == "mcp"]
    expect(
        sent_tool and sent_tool[0].get("authorization") == "Bearer rotated-token",
        "RN-MCP-009",
        f"the resumed request does not use the supplied credentials: {sent_tool}",
    )


@pytest.mark.clause("RN-MCP-011")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_checkpoint_with_raw_mcp_url_is_not_resumed(mode: Mode) -> None:
    def raw_url(boundary: dict[str, Any]) -> None:
        for tool in _saved_mcp(boundary):
            tool["server_url"] = MCP_URL

    second, sent = _resume_with(_mcp_run(mode), _mcp_tool(), raw_url)
    expect(second.error is not None, "RN-MCP-011", "a checkpoint holding the raw MCP URL was resumed")
    expect(not sent, "RN-MCP-011", f"the refused resume sent {len(sent)} requests")


def _interpreter_run(mode: Mode) -> tuple[ScenarioRun, CapturedRun]:
    """Run 1 of ledger-resume (one call, then HTTP 500) with a Code Interpreter secret declared."""
    setup = Setup().with_params(tools=[_interpreter_tool()])
    harness = ScenarioRun(load("ledger-resume"), setup, mode)
    return harness, harness.run()


def _saved_secrets(checkpoint: dict[str, Any]) -> list[Any]:
    saved = [tool for tool in checkpoint["tools"] if tool.get("type") == "code_interpreter"]
    if len(saved) != 1:
        return []
    return list(saved[0].get("container", {}).get("network_policy", {}).get("domain_secrets") or [])


@pytest.mark.clause("RN-LEDGER-007")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_checkpoints_keep_secret_names_but_not_values(mode: Mode) -> None:
    _, outcome = _interpreter_run(mode)
    for checkpoint in _checkpoints_of(outcome, "RN-LEDGER-007"):
        expect(
            SECRET_VALUE not in json.dumps(checkpoint),
            "RN-LEDGER-007",
            f"a {checkpoint['phase']} checkpoint holds the secret value",
        )
        secrets = _saved_secrets(checkpoint)
        expect(
            [(secret.get("domain"), secret.get("name")) for secret in secrets] == [("api.example", "API_TOKEN")],
            "RN-LEDGER-007",
            f"the saved declaration lost the credential's name or domain: {secrets}",
        )
    sent = [tool for tool in outcome.bodies[0].get("tools", []) if tool.get("type") == "code_interpreter"]
    expect(SECRET_VALUE in json.dumps(sent), "RN-LEDGER-007", f"the request lacks the secret value: {sent}")


@pytest.mark.clause("RN-LEDGER-008")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_resume_sends_the_secret_supplied_to_the_resumed_run(mode: Mode) -> None:
    second, resumed = _resume_with(_interpreter_run(mode), _interpreter_tool("rotated-secret-77d0"))
    expect(second.error is None, "RN-LEDGER-008", f"resume failed: {second.error!r}")
    expect(resumed, "RN-LEDGER-008", "the resumed run sent no request")
    for request in resumed:
        tools = json.dumps((request.body or {}).get("tools", []))
        expect(
            "rotated-secret-77d0" in tools and SECRET_VALUE not in tools,
            "RN-LEDGER-008",
            f"a resumed request does not carry the resumed run's secret value: {tools}",
        )
