"""The runner-state checks can fail: checkpoints and resume with MCP and Code Interpreter declarations, native
compaction, and the context budget. Each test patches one misbehaviour into the installed SDK and requires the
check to fail on exactly its clause; the unpatched SDK passes the same case first (see tests/test_sdk_findings.py).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import socket
from collections.abc import Callable
from typing import Any

import openai.lib.computer as computer_module
import openai.lib.responses_tool_runner as rtr
import pytest

from conformance.assertions import ClauseViolation
from conformance.contracts.runner import check_budget_details as budget
from conformance.contracts.runner import check_budget_turns as budget_turns
from conformance.contracts.runner import check_checkpoint_privacy as privacy
from conformance.contracts.runner import check_compaction as compaction
from conformance.contracts.runner import check_ledger_batches as batches
from conformance.contracts.runner import check_mcp_binding as binding
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


def _restoring(monkeypatch: pytest.MonkeyPatch, edit: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Every resume restores the checkpoint ``edit`` makes of the saved one."""
    original = rtr._Run.restore

    def patched(run: Any, checkpoint: Any) -> None:
        original(run, edit(checkpoint))

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

    def lenient(checkpoint: dict[str, Any]) -> dict[str, Any]:
        # Accepts an old-style checkpoint by hashing its raw URL, which the documents rule out.
        checkpoint = copy.deepcopy(checkpoint)
        for tool in checkpoint["tools"]:
            url = tool.get("server_url")
            if tool.get("type") == "mcp" and isinstance(url, str) and not url.startswith("sha256:"):
                tool["server_url"] = "sha256:" + hashlib.sha256(rtr._legacy_state_url(url).encode()).hexdigest()
        return checkpoint

    _restoring(monkeypatch, lenient)
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


def _wrap_init(monkeypatch: pytest.MonkeyPatch, after: Callable[[Any, Any], None]) -> None:
    original = rtr._Run.__init__

    def patched(run: Any, params: Any, *args: Any, **kwargs: Any) -> None:
        original(run, params, *args, **kwargs)
        after(run, params)

    monkeypatch.setattr(rtr._Run, "__init__", patched)


def test_dropping_context_management_fails_rn_compact_001(monkeypatch: pytest.MonkeyPatch) -> None:
    compaction.test_runner_sends_context_management_and_replays_the_item(_mode("async-stream"))
    _wrap_init(monkeypatch, lambda run, params: run.request.pop("context_management", None))
    _fails_on(
        "RN-COMPACT-001",
        lambda: compaction.test_runner_sends_context_management_and_replays_the_item(_mode("async-stream")),
    )


def _complete_compaction(output: Any) -> None:
    for item in output:
        if getattr(item, "type", None) == "compaction" and getattr(item, "encrypted_content", None) is None:
            item.encrypted_content = "invented"


def test_accepting_a_malformed_compaction_item_fails_rn_compact_002(monkeypatch: pytest.MonkeyPatch) -> None:
    compaction.test_malformed_compaction_item_stops_the_run(_mode("sync-plain"))
    original = rtr._Run.preflight

    def lenient(run: Any, response: Any, **kwargs: Any) -> Any:
        _complete_compaction(response.output)
        return original(run, response, **kwargs)

    monkeypatch.setattr(rtr._Run, "preflight", lenient)
    _fails_on("RN-COMPACT-002", lambda: compaction.test_malformed_compaction_item_stops_the_run(_mode("sync-plain")))


def test_losing_compaction_on_resume_fails_rn_compact_003(monkeypatch: pytest.MonkeyPatch) -> None:
    compaction.test_resumed_run_replays_the_saved_compaction_item(_mode("sync-eager-ledger"))

    def without_compaction(run: Any, checkpoint: dict[str, Any]) -> None:
        run.history = [item for item in run.history if item.get("type") != "compaction"]
        run.request["input"] = run.history

    _after_restore(monkeypatch, without_compaction)
    _fails_on(
        "RN-COMPACT-003",
        lambda: compaction.test_resumed_run_replays_the_saved_compaction_item(_mode("sync-eager-ledger")),
    )


@pytest.mark.parametrize("params", [{"context_management": compaction.MANAGEMENT}, {"truncation": "auto"}])
def test_unchecked_budget_combination_fails_rn_compact_004(monkeypatch: pytest.MonkeyPatch, params: Any) -> None:
    check = compaction.test_budget_mode_refuses_server_side_context_handling
    check(params, _mode("async-plain"))
    original = rtr._Run.__init__

    def unchecked(run: Any, given: Any, *args: Any, **kwargs: Any) -> None:
        # Validates without the server-side options, then sends them anyway.
        hidden = {key: given.pop(key) for key in ("context_management", "truncation") if key in given}
        original(run, given, *args, **kwargs)
        run.request.update(hidden)

    monkeypatch.setattr(rtr._Run, "__init__", unchecked)
    _fails_on("RN-COMPACT-004", lambda: check(params, _mode("async-plain")))


def test_computer_loop_dropping_context_management_fails_rn_compact_005(monkeypatch: pytest.MonkeyPatch) -> None:
    check = compaction.test_computer_loop_accepts_compaction_and_replays_the_item
    check(_mode("sync-plain"))
    original = computer_module._snapshot_request

    def without(params: Any) -> Any:
        request = original(params)
        request.pop("context_management", None)
        return request

    monkeypatch.setattr(computer_module, "_snapshot_request", without)
    _fails_on("RN-COMPACT-005", lambda: check(_mode("sync-plain")))


def test_computer_loop_accepting_a_malformed_item_fails_rn_compact_006(monkeypatch: pytest.MonkeyPatch) -> None:
    check = compaction.test_computer_loop_stops_on_a_malformed_compaction_item
    check(_mode("async-plain"))
    original = computer_module._calls

    def lenient(response: Any, *args: Any) -> Any:
        _complete_compaction(response.output)
        return original(response, *args)

    monkeypatch.setattr(computer_module, "_calls", lenient)
    _fails_on("RN-COMPACT-006", lambda: check(_mode("async-plain")))


def test_escaped_spaced_measurement_fails_rn_budget_011(monkeypatch: pytest.MonkeyPatch) -> None:
    budget.test_input_bytes_are_compact_utf8_json(_mode("sync-plain"))
    original = rtr._Run.context_size

    def ascii_json(history: Any) -> tuple[int, int]:
        return len(json.dumps(history).encode("utf-8")), original(history)[1]

    monkeypatch.setattr(rtr._Run, "context_size", staticmethod(ascii_json))
    _fails_on("RN-BUDGET-011", lambda: budget.test_input_bytes_are_compact_utf8_json(_mode("sync-plain")))


def _wrap_context_input(monkeypatch: pytest.MonkeyPatch, after: Callable[[Any, Any, list[Any]], list[Any]]) -> None:
    original = rtr._Run.context_input

    def patched(run: Any, decision: Any, eligible: Any) -> Any:
        return after(run, decision, list(original(run, decision, eligible)))

    monkeypatch.setattr(rtr._Run, "context_input", patched)


def test_nameless_receipts_fail_rn_budget_012(monkeypatch: pytest.MonkeyPatch) -> None:
    check = budget.test_receipt_names_the_function_and_the_summary_stands_apart
    check(_mode("async-stream"))

    def nameless(run: Any, decision: Any, items: list[Any]) -> list[Any]:
        return [
            {**item, "content": item["content"].replace(',"name":"lookup"', "")}
            if isinstance(item.get("content"), str)
            else item
            for item in items
        ]

    _wrap_context_input(monkeypatch, nameless)
    _fails_on("RN-BUDGET-012", lambda: check(_mode("async-stream")))


def test_uncounted_summary_fails_rn_budget_013(monkeypatch: pytest.MonkeyPatch) -> None:
    budget.test_receipt_and_summary_count_against_the_limit(_mode("sync-eager"))
    original = rtr._Run.context_input

    def uncounted(run: Any, decision: Any, eligible: Any) -> Any:
        # Checks the projected input against a limit that ignores the added messages.
        limit = run.context_budget
        run.context_budget = {**limit, "max_input_bytes": 10**9}
        try:
            return original(run, decision, eligible)
        finally:
            run.context_budget = limit

    monkeypatch.setattr(rtr._Run, "context_input", uncounted)
    _fails_on("RN-BUDGET-013", lambda: budget.test_receipt_and_summary_count_against_the_limit(_mode("sync-eager")))


def _history_becomes_the_request(monkeypatch: pytest.MonkeyPatch) -> None:
    def compacted(run: Any, decision: Any, items: list[Any]) -> list[Any]:
        run.history = items
        run.request["input"] = items
        return items

    _wrap_context_input(monkeypatch, compacted)


def test_compacted_ledger_fails_rn_budget_014(monkeypatch: pytest.MonkeyPatch) -> None:
    budget.test_ledger_keeps_the_full_history(_mode("sync-plain-ledger"))
    _history_becomes_the_request(monkeypatch)
    _fails_on("RN-BUDGET-014", lambda: budget.test_ledger_keeps_the_full_history(_mode("sync-plain-ledger")))


def test_remembered_budget_fails_rn_budget_020(monkeypatch: pytest.MonkeyPatch) -> None:
    check = budget.test_resume_without_budget_sends_the_full_history
    check(_mode("async-eager-ledger"))
    original = rtr.AsyncResponsesToolRunner.run
    remembered: list[Any] = []

    def sticky(runner: Any, client: Any, params: Any, **options: Any) -> Any:
        # The budget of an earlier invocation carries over to one that gives none.
        if options.get("context_budget") is not None:
            remembered[:] = [options["context_budget"]]
        elif remembered:
            options["context_budget"] = remembered[0]
        return original(runner, client, params, **options)

    monkeypatch.setattr(rtr.AsyncResponsesToolRunner, "run", sticky)
    _fails_on("RN-BUDGET-020", lambda: check(_mode("async-eager-ledger")))


def test_dropping_reasoning_fails_rn_budget_015(monkeypatch: pytest.MonkeyPatch) -> None:
    budget.test_reasoning_is_never_dropped(_mode("sync-stream"))
    _wrap_context_input(monkeypatch, lambda run, decision, items: [i for i in items if i.get("type") != "reasoning"])
    _fails_on("RN-BUDGET-015", lambda: budget.test_reasoning_is_never_dropped(_mode("sync-stream")))


def test_forgetting_dropped_ids_fails_rn_budget_016(monkeypatch: pytest.MonkeyPatch) -> None:
    budget.test_dropped_call_id_coming_back_stops_the_run(_mode("sync-plain"))
    dropped: set[str] = set()

    def remember(run: Any, decision: Any, items: list[Any]) -> list[Any]:
        dropped.update(decision["drop_call_ids"])
        return items

    _wrap_context_input(monkeypatch, remember)
    original = rtr._Run.validate

    def forgetful(run: Any, item: Any, seen: set[str]) -> Any:
        return original(run, item, set(seen) - dropped)

    monkeypatch.setattr(rtr._Run, "validate", forgetful)
    _fails_on("RN-BUDGET-016", lambda: budget.test_dropped_call_id_coming_back_stops_the_run(_mode("sync-plain")))


def test_live_snapshot_fails_rn_budget_017(monkeypatch: pytest.MonkeyPatch) -> None:
    budget.test_snapshot_edits_change_nothing(_mode("async-plain"))
    original = rtr._Run.context_snapshot

    def live(run: Any) -> Any:
        result = original(run)
        if result is not None:
            result[0]["history"] = run.history
        return result

    monkeypatch.setattr(rtr._Run, "context_snapshot", live)
    _fails_on("RN-BUDGET-017", lambda: budget.test_snapshot_edits_change_nothing(_mode("async-plain")))


def test_unawaited_policy_fails_rn_budget_018(monkeypatch: pytest.MonkeyPatch) -> None:
    budget.test_async_runner_awaits_an_async_policy(_mode("async-plain"))
    original = rtr.isawaitable
    # Only the policy's coroutine goes unawaited: the scenario's executors return plain values through it too.
    monkeypatch.setattr(rtr, "isawaitable", lambda value: original(value) and "compact" not in repr(value))
    _fails_on("RN-BUDGET-018", lambda: budget.test_async_runner_awaits_an_async_policy(_mode("async-plain")))


def test_none_as_a_default_budget_fails_rn_budget_019(monkeypatch: pytest.MonkeyPatch) -> None:
    budget.test_none_budget_is_no_budget(_mode("sync-plain"))
    original = rtr.ResponsesToolRunner.run

    def defaulted(runner: Any, client: Any, params: Any, **options: Any) -> Any:
        if "context_budget" in options and options["context_budget"] is None:
            options["context_budget"] = {"max_input_bytes": 10**9, "max_input_images": 10**6}
        return original(runner, client, params, **options)

    monkeypatch.setattr(rtr.ResponsesToolRunner, "run", defaulted)
    _fails_on("RN-BUDGET-019", lambda: budget.test_none_budget_is_no_budget(_mode("sync-plain")))


def test_reading_custom_input_fails_rn_budget_021(monkeypatch: pytest.MonkeyPatch) -> None:
    budget.test_budget_refuses_custom_input_containers_unread(_mode("sync-plain"))

    def converting(run: Any, params: Any, *args: Any, **kwargs: Any) -> None:
        if not isinstance(params.get("input"), (list, str)):
            params = {**params, "input": list(params["input"])}
        original(run, params, *args, **kwargs)

    original = rtr._Run.__init__
    monkeypatch.setattr(rtr._Run, "__init__", converting)
    _fails_on("RN-BUDGET-021", lambda: budget.test_budget_refuses_custom_input_containers_unread(_mode("sync-plain")))


def test_policy_before_answers_fails_rn_budget_022(monkeypatch: pytest.MonkeyPatch) -> None:
    budget.test_unanswered_call_stops_before_the_policy(_mode("async-stream"))
    monkeypatch.setattr(rtr._Run, "validate_boundary", lambda run: None)
    _fails_on("RN-BUDGET-022", lambda: budget.test_unanswered_call_stops_before_the_policy(_mode("async-stream")))


def test_arguments_only_binding_fails_rn_mcp_003(monkeypatch: pytest.MonkeyPatch) -> None:
    check = binding.test_call_must_match_approved_server_and_name
    tools = (binding.MCP_TOOL, binding.WIKI_TOOL)
    check("mcp-call-other-server", tools, _mode("sync-stream"))

    def arguments_only(item: dict[str, object], approved: dict[str, dict[str, object]]) -> None:
        request_id = item.get("approval_request_id")
        request = approved.get(request_id) if isinstance(request_id, str) else None
        if request is None or request.get("arguments") != item.get("arguments"):
            raise ValueError("MCP execution has no matching approved original request.")
        del approved[request_id]  # type: ignore[arg-type]

    monkeypatch.setattr(rtr, "_validated_mcp_call", arguments_only)
    _fails_on("RN-MCP-003", lambda: check("mcp-call-other-server", tools, _mode("sync-stream")))


def test_taking_the_models_approval_fails_rn_mcp_012(monkeypatch: pytest.MonkeyPatch) -> None:
    binding.test_model_approval_items_never_grant(_mode("sync-plain"))
    original = rtr._Run.validate

    def trusting(run: Any, item: Any, seen: set[str]) -> Any:
        # Replays the model's approval item as if the application had answered.
        if item.type == "mcp_approval_response":
            return False
        return original(run, item, seen)

    monkeypatch.setattr(rtr._Run, "validate", trusting)
    _fails_on("RN-MCP-012", lambda: binding.test_model_approval_items_never_grant(_mode("sync-plain")))


def test_granting_without_a_callback_fails_rn_mcp_002(monkeypatch: pytest.MonkeyPatch) -> None:
    binding.test_assistant_message_is_no_consent(_mode("sync-eager"))
    original = rtr.ResponsesToolRunner._approve_mcp

    def consenting(run: Any, item: Any, approve_mcp: Any) -> bool:
        return True if approve_mcp is None else original(run, item, approve_mcp)

    monkeypatch.setattr(rtr.ResponsesToolRunner, "_approve_mcp", staticmethod(consenting))
    _fails_on("RN-MCP-002", lambda: binding.test_assistant_message_is_no_consent(_mode("sync-eager")))


def test_live_approval_request_fails_rn_mcp_013(monkeypatch: pytest.MonkeyPatch) -> None:
    binding.test_callback_edits_change_neither_answer_nor_binding(_mode("sync-plain"))
    original = rtr.model_copy
    monkeypatch.setattr(
        rtr,
        "model_copy",
        lambda item, deep=False: item if item.type == "mcp_approval_request" else original(item, deep=deep),
    )
    _fails_on("RN-MCP-013", lambda: binding.test_callback_edits_change_neither_answer_nor_binding(_mode("sync-plain")))


def test_ignoring_tool_names_fails_rn_mcp_014(monkeypatch: pytest.MonkeyPatch) -> None:
    check = binding.test_tool_name_filters_are_enforced
    policy = {"never": {"tool_names": ["search"]}}
    check(policy, True, _mode("async-plain"))
    original = rtr._mcp_approval_policy

    def nameless(declaration: Any, name: str) -> Any:
        policy = declaration.get("require_approval")
        if isinstance(policy, dict) and any(
            isinstance(rule, dict) and "tool_names" in rule for rule in policy.values()
        ):
            return "always"
        return original(declaration, name)

    monkeypatch.setattr(rtr, "_mcp_approval_policy", nameless)
    _fails_on("RN-MCP-014", lambda: check(policy, True, _mode("async-plain")))


def test_asking_settled_approvals_again_fails_rn_mcp_015(monkeypatch: pytest.MonkeyPatch) -> None:
    binding.test_completed_and_refused_approvals_are_left_alone(_mode("async-stream"))

    def every_request(history: Any) -> dict[str, dict[str, object]]:
        return {item["id"]: item for item in history if item.get("type") == "mcp_approval_request"}

    monkeypatch.setattr(rtr, "_approved_mcp_requests", every_request)
    _fails_on("RN-MCP-015", lambda: binding.test_completed_and_refused_approvals_are_left_alone(_mode("async-stream")))


def test_no_reapproval_with_a_budget_fails_rn_mcp_006(monkeypatch: pytest.MonkeyPatch) -> None:
    binding.test_open_approval_is_asked_again_with_a_context_budget(_mode("sync-plain"))
    original = rtr._Run.approvals_to_refresh

    def skipped(run: Any) -> Any:
        return iter(()) if run.context_budget is not None else original(run)

    monkeypatch.setattr(rtr._Run, "approvals_to_refresh", skipped)
    _fails_on(
        "RN-MCP-006", lambda: binding.test_open_approval_is_asked_again_with_a_context_budget(_mode("sync-plain"))
    )


def test_resuming_a_pending_mcp_checkpoint_fails_rn_ledger_003(monkeypatch: pytest.MonkeyPatch) -> None:
    check = binding.test_pending_checkpoint_before_a_failed_mcp_request_is_not_resumed
    check(_mode("sync-plain-ledger"))
    _restoring(
        monkeypatch, lambda checkpoint: {**checkpoint, "phase": "boundary", "pending_items": [], "returned_outputs": []}
    )
    _fails_on("RN-LEDGER-003", lambda: check(_mode("sync-plain-ledger")))


def test_saving_only_attempted_items_fails_rn_ledger_009(monkeypatch: pytest.MonkeyPatch) -> None:
    batches.test_checkpoints_hold_the_batch_and_the_history(_mode("sync-plain-ledger"))
    original = rtr._Run.checkpoint

    def attempted_only(run: Any, phase: Any, response: Any = None) -> Any:
        value = dict(original(run, phase, response))
        value["pending_items"] = [
            item for item in value["pending_items"] if item.get("call_id") in value["attempted_call_ids"]
        ]
        return value

    monkeypatch.setattr(rtr._Run, "checkpoint", attempted_only)
    _fails_on(
        "RN-LEDGER-009", lambda: batches.test_checkpoints_hold_the_batch_and_the_history(_mode("sync-plain-ledger"))
    )


def test_resuming_with_unrun_proposals_fails_rn_ledger_003(monkeypatch: pytest.MonkeyPatch) -> None:
    batches.test_save_with_unrun_proposals_is_not_resumed(_mode("async-stream-ledger"))

    def as_boundary(checkpoint: dict[str, Any]) -> dict[str, Any]:
        # Folds the finished part of the batch into history and forgets the proposals that never ran.
        done = set(checkpoint["returned_call_ids"])
        finished = [item for item in checkpoint["pending_items"] if item.get("call_id") in done]
        history = [*checkpoint["history"], *finished, *checkpoint["returned_outputs"]]
        folded = {**checkpoint, "phase": "boundary", "history": history, "pending_items": [], "returned_outputs": []}
        return {**folded, "attempted_call_ids": list(checkpoint["returned_call_ids"])}

    _restoring(monkeypatch, as_boundary)
    _fails_on(
        "RN-LEDGER-003", lambda: batches.test_save_with_unrun_proposals_is_not_resumed(_mode("async-stream-ledger"))
    )


def test_budget_granting_approval_fails_rn_budget_023(monkeypatch: pytest.MonkeyPatch) -> None:
    budget_turns.test_compaction_never_approves(_mode("sync-plain"))
    original = rtr.ResponsesToolRunner._approve_mcp

    def granted(run: Any, item: Any, approve_mcp: Any) -> bool:
        return True if run.context_budget is not None else original(run, item, approve_mcp)

    monkeypatch.setattr(rtr.ResponsesToolRunner, "_approve_mcp", staticmethod(granted))
    _fails_on("RN-BUDGET-023", lambda: budget_turns.test_compaction_never_approves(_mode("sync-plain")))


def test_policy_on_close_fails_rn_budget_024(monkeypatch: pytest.MonkeyPatch) -> None:
    budget_turns.test_closing_an_iterator_never_calls_the_policy(_mode("sync-plain"))
    original = rtr.ResponsesToolRunner.iterate

    def compacting_on_close(runner: Any, client: Any, params: Any, **options: Any) -> Any:
        # A close path that compacts what it would save, asking the policy once more.
        try:
            yield from original(runner, client, params, **options)
        finally:
            policy = (options.get("context_budget") or {}).get("compact")
            if policy is not None:
                policy({"history": [], "eligible_call_ids": [], "input_bytes": 0, "input_images": 0})

    monkeypatch.setattr(rtr.ResponsesToolRunner, "iterate", compacting_on_close)
    _fails_on(
        "RN-BUDGET-024", lambda: budget_turns.test_closing_an_iterator_never_calls_the_policy(_mode("sync-plain"))
    )


def test_uncounted_appended_text_fails_rn_budget_025(monkeypatch: pytest.MonkeyPatch) -> None:
    budget_turns.test_appended_text_counts_and_steps_go_on(_mode("async-stream"))
    original = rtr._Run.context_size

    def first_message_only(history: Any) -> tuple[int, int]:
        users = [index for index, item in enumerate(history) if item.get("role") == "user"]
        return original([item for index, item in enumerate(history) if index not in users[1:]])

    monkeypatch.setattr(rtr._Run, "context_size", staticmethod(first_message_only))
    _fails_on("RN-BUDGET-025", lambda: budget_turns.test_appended_text_counts_and_steps_go_on(_mode("async-stream")))


def test_fetching_remote_images_fails_rn_budget_026(monkeypatch: pytest.MonkeyPatch) -> None:
    check = budget_turns.test_remote_images_are_counted_not_fetched
    with pytest.MonkeyPatch.context() as clean:
        check(_mode("sync-plain"), clean)
    original = rtr._Run.context_size

    def fetching(history: Any) -> tuple[int, int]:
        # Looks each remote image up, as a runner measuring decoded image size would.
        for item in history:
            for block in item.get("output") or [] if isinstance(item.get("output"), list) else []:
                url = block.get("image_url") if isinstance(block, dict) else None
                if isinstance(url, str) and url.startswith("https://"):
                    with contextlib.suppress(OSError):
                        socket.getaddrinfo(url.split("/")[2], 443)
        return original(history)

    monkeypatch.setattr(rtr._Run, "context_size", staticmethod(fetching))
    _fails_on("RN-BUDGET-026", lambda: check(_mode("sync-plain"), monkeypatch))


def test_offering_refused_calls_fails_rn_budget_027(monkeypatch: pytest.MonkeyPatch) -> None:
    # The installed SDK has this defect (a known deviation): the check fails on it as it is, and passes once the
    # refusal is protected, so it turns green when the SDK is fixed.
    check = budget_turns.test_refused_browser_call_is_never_eligible
    _fails_on("RN-BUDGET-027", lambda: check(_mode("sync-plain")))
    original = rtr._Run.context_snapshot

    def protecting_refusals(run: Any) -> Any:
        result = original(run)
        if result is None:
            return None
        snapshot, _ = result
        refused = {
            item["call_id"]
            for item in snapshot["history"]
            if item.get("type") == "function_call_output" and '"ok": false' in str(item.get("output"))
        }
        eligible = [call_id for call_id in snapshot["eligible_call_ids"] if call_id not in refused]
        return {**snapshot, "eligible_call_ids": eligible}, frozenset(eligible)

    monkeypatch.setattr(rtr._Run, "context_snapshot", protecting_refusals)
    check(_mode("sync-plain"))
