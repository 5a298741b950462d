"""The runner-state checks can fail: checkpoints and resume with MCP and Code Interpreter declarations, native
compaction, and the context budget. Each test patches one misbehaviour into the installed SDK and requires the
check to fail on exactly its clause; the unpatched SDK passes the same case first (see tests/test_sdk_findings.py).
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from typing import Any

import openai.lib.responses_tool_runner as rtr
import pytest

from conformance.assertions import ClauseViolation
from conformance.contracts.runner import check_checkpoint_privacy as privacy
from conformance.rig import parse_mode as _mode


def _fails_on(clause: str, check: Callable[[], None]) -> None:
    with pytest.raises(ClauseViolation) as caught:
        check()
    assert caught.value.clause_id == clause, f"failed on {caught.value.clause_id}, expected {clause}: {caught.value}"


def _after_restore(monkeypatch: pytest.MonkeyPatch, edit: Callable[[Any, dict[str, Any]], None]) -> None:
    original = rtr._Run.restore

    def patched(run: Any, checkpoint: Any) -> None:
        original(run, checkpoint)
        edit(run, checkpoint)

    monkeypatch.setattr(rtr._Run, "restore", patched)


@pytest.mark.parametrize("mode_id", ["sync-plain-ledger", "async-stream-ledger"])
def test_saving_declarations_as_given_fails_rn_mcp_008(monkeypatch: pytest.MonkeyPatch, mode_id: str) -> None:
    privacy.test_checkpoints_hold_no_mcp_credentials_or_url(_mode(mode_id))
    monkeypatch.setattr(rtr, "_ledger_tools", lambda tools: copy.deepcopy(list(tools)))
    _fails_on("RN-MCP-008", lambda: privacy.test_checkpoints_hold_no_mcp_credentials_or_url(_mode(mode_id)))


def test_sending_the_saved_form_fails_rn_mcp_009(monkeypatch: pytest.MonkeyPatch) -> None:
    privacy.test_requests_still_carry_the_original_mcp_declaration(_mode("sync-plain"))
    original = rtr._Run.__init__

    def patched(run: Any, *args: Any, **kwargs: Any) -> None:
        original(run, *args, **kwargs)
        run.request["tools"] = rtr._ledger_tools(run.request["tools"])

    monkeypatch.setattr(rtr._Run, "__init__", patched)
    _fails_on("RN-MCP-009", lambda: privacy.test_requests_still_carry_the_original_mcp_declaration(_mode("sync-plain")))


def test_host_only_identity_fails_rn_mcp_010(monkeypatch: pytest.MonkeyPatch) -> None:
    check = privacy.test_resume_with_another_mcp_url_is_refused
    url = "https://mcp.example/tenant-8e01/sse?workspace=ws-91c2"
    check(url, _mode("sync-plain-ledger"))
    # A fingerprint of the origin alone: another path on the same host looks like the same server.
    monkeypatch.setattr(rtr, "_legacy_state_url", lambda url: url.split("/", 3)[2])
    _fails_on("RN-MCP-010", lambda: check(url, _mode("sync-plain-ledger")))


def test_fingerprinting_raw_urls_on_resume_fails_rn_mcp_011(monkeypatch: pytest.MonkeyPatch) -> None:
    privacy.test_checkpoint_with_raw_mcp_url_is_not_resumed(_mode("async-plain-ledger"))
    original = rtr._Run.restore

    def lenient(run: Any, checkpoint: Any) -> None:
        # Accepts an old-style checkpoint by hashing its raw URL, which the documents rule out.
        checkpoint = copy.deepcopy(checkpoint)
        for tool in checkpoint["tools"]:
            url = tool.get("server_url")
            if tool.get("type") == "mcp" and isinstance(url, str) and not url.startswith("sha256:"):
                tool["server_url"] = "sha256:" + hashlib.sha256(rtr._legacy_state_url(url).encode()).hexdigest()
        original(run, checkpoint)

    monkeypatch.setattr(rtr._Run, "restore", lenient)
    _fails_on(
        "RN-MCP-011", lambda: privacy.test_checkpoint_with_raw_mcp_url_is_not_resumed(_mode("async-plain-ledger"))
    )


def test_saving_secret_values_fails_rn_ledger_007(monkeypatch: pytest.MonkeyPatch) -> None:
    privacy.test_checkpoints_keep_secret_names_but_not_values(_mode("sync-stream-ledger"))
    original = rtr._ledger_tools

    def keeps_interpreter(tools: Any) -> Any:
        return [
            copy.deepcopy(tool) if tool["type"] == "code_interpreter" else saved
            for tool, saved in zip(tools, original(tools), strict=True)
        ]

    monkeypatch.setattr(rtr, "_ledger_tools", keeps_interpreter)
    _fails_on(
        "RN-LEDGER-007", lambda: privacy.test_checkpoints_keep_secret_names_but_not_values(_mode("sync-stream-ledger"))
    )


def test_resuming_with_saved_secrets_fails_rn_ledger_008(monkeypatch: pytest.MonkeyPatch) -> None:
    privacy.test_resume_sends_the_secret_supplied_to_the_resumed_run(_mode("async-eager-ledger"))

    def saved_tools(run: Any, checkpoint: dict[str, Any]) -> None:
        run.request["tools"] = copy.deepcopy(checkpoint["tools"])

    _after_restore(monkeypatch, saved_tools)
    _fails_on(
        "RN-LEDGER-008",
        lambda: privacy.test_resume_sends_the_secret_supplied_to_the_resumed_run(_mode("async-eager-ledger")),
    )
