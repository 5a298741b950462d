"""The runner checks of conformance/contracts/runner/ check_registration.py, check_decisions_contract.py,
check_runner_lifecycle.py, check_turn_rules.py, check_early_policy.py, check_early_consent.py,
check_typed_and_server.py, check_stream_errors.py and check_stream_closing.py can fail: each test patches one
misbehaviour into the installed SDK and requires the check to fail on exactly its clause; the unpatched SDK passes
the same case first (see tests/test_sdk_findings.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import sys
from collections.abc import Callable
from typing import Any

import openai._streaming as openai_streaming
import openai.lib._tool_lifecycle as tool_lifecycle
import openai.lib.browser as browser_module
import openai.lib.decisions_tool_runner as dtr
import openai.lib.responses_tool_runner as rtr
import openai.lib.streaming.responses._responses as streaming_responses
import pytest

from conformance.assertions import ClauseViolation
from conformance.contracts.runner import check_decisions_contract as decisions
from conformance.contracts.runner import check_early_consent as early_consent
from conformance.contracts.runner import check_early_policy as early
from conformance.contracts.runner import check_registration as reg
from conformance.contracts.runner import check_runner_lifecycle as lifecycle
from conformance.contracts.runner import check_stream_closing as stream_closing
from conformance.contracts.runner import check_stream_errors as stream_errors
from conformance.contracts.runner import check_turn_rules as turns
from conformance.contracts.runner import check_typed_and_server as typed
from conformance.contracts.runner._scenario import ReferenceArguments
from conformance.rig import parse_mode as _mode


def _fails_on(clause: str, check: Callable[[], None]) -> None:
    with pytest.raises(ClauseViolation) as caught:
        check()
    assert caught.value.clause_id == clause, f"failed on {caught.value.clause_id}, expected {clause}: {caught.value}"


def _proven(monkeypatch: pytest.MonkeyPatch, clause: str, check: Callable[[], None], patch: Callable[[], None]) -> None:
    check()
    patch()
    _fails_on(clause, check)


def _registry_with(monkeypatch: pytest.MonkeyPatch, edit: Callable[[Any, list[Any]], list[Any]]) -> None:
    """``_registry`` seeing the functions ``edit`` leaves of the registered ones (given the browser toolset)."""
    original = rtr._registry

    def patched(browser: Any, computer: Any, functions: Any) -> Any:
        return original(browser, computer, edit(browser, list(functions)))

    monkeypatch.setattr(rtr, "_registry", patched)


def _run_init_with(monkeypatch: pytest.MonkeyPatch, edit: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Every run built from the params ``edit`` makes of the caller's."""
    original: Any = rtr._Run.__init__

    def patched(run: Any, params: Any, *args: Any, **kwargs: Any) -> None:
        original(run, edit(dict(params)), *args, **kwargs)

    monkeypatch.setattr(rtr._Run, "__init__", patched)


def test_silently_merged_duplicates_fail_rn_reg_001(monkeypatch: pytest.MonkeyPatch) -> None:
    def first_of_each_name(browser: Any, functions: list[Any]) -> list[Any]:
        kept: dict[str, Any] = {}
        for function in functions:
            kept.setdefault(function.tool["name"], function)
        return list(kept.values())

    _proven(
        monkeypatch,
        "RN-REG-001",
        lambda: reg.test_duplicate_function_names_are_refused(_mode("sync-plain")),
        lambda: _registry_with(monkeypatch, first_of_each_name),
    )


def test_dropped_shadowing_function_fails_rn_reg_002(monkeypatch: pytest.MonkeyPatch) -> None:
    def without_browser_names(browser: Any, functions: list[Any]) -> list[Any]:
        taken = {tool["name"] for tool in browser.tools} if browser is not None else set()
        return [function for function in functions if function.tool["name"] not in taken]

    _proven(
        monkeypatch,
        "RN-REG-002",
        lambda: reg.test_function_named_like_an_enabled_browser_tool_is_refused(_mode("async-plain")),
        lambda: _registry_with(monkeypatch, without_browser_names),
    )


def test_refusing_every_browser_prefix_fails_rn_reg_003(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_browser_prefix(browser: Any, functions: list[Any]) -> list[Any]:
        if any(function.tool["name"].startswith("browser_") for function in functions):
            raise ValueError("Function names must not start with browser_.")
        return functions

    _proven(
        monkeypatch,
        "RN-REG-003",
        lambda: reg.test_browser_prefixed_function_reaches_its_executor(_mode("sync-stream")),
        lambda: _registry_with(monkeypatch, no_browser_prefix),
    )


def _names_unchecked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validation that lets any function name through (the runner then finds no executor only at dispatch)."""
    original = rtr._Run.validate

    def validate(run: Any, item: Any, seen: set[str]) -> bool:
        if item.type == "function_call" and item.name not in run.function_names:
            run.tools.append({"type": "function", "name": item.name, "parameters": {"type": "object"}})
            run.function_names.add(item.name)
            run.selected_functions.add(item.name)
        return bool(original(run, item, seen))

    monkeypatch.setattr(rtr._Run, "validate", validate)


class _AnswerEveryName(dict[str, Any]):
    """A runner's function table that answers any name with a fallback executor (a recovery 'feature')."""

    def __contains__(self, name: object) -> bool:
        return True

    def __missing__(self, name: str) -> Any:
        return rtr.RegisteredFunction(
            tool={"type": "function", "name": name, "parameters": {"type": "object"}},  # type: ignore[typeddict-item]
            execute=lambda arguments: f"No function named {name}.",
        )


def test_answering_unknown_calls_fails_rn_reg_004(monkeypatch: pytest.MonkeyPatch) -> None:
    def patch() -> None:
        original_init = rtr.ResponsesToolRunner.__init__

        def init(runner: Any, **kwargs: Any) -> None:
            original_init(runner, **kwargs)
            runner._functions = _AnswerEveryName(runner._functions)

        monkeypatch.setattr(rtr.ResponsesToolRunner, "__init__", init)
        _names_unchecked(monkeypatch)

    _proven(
        monkeypatch,
        "RN-REG-004",
        lambda: reg.test_call_without_executor_never_runs_or_is_answered(_mode("sync-plain")),
        patch,
    )


def test_names_checked_only_at_dispatch_fail_rn_reg_005(monkeypatch: pytest.MonkeyPatch) -> None:
    _proven(
        monkeypatch,
        "RN-REG-005",
        lambda: reg.test_whole_response_is_validated_before_dispatch(
            "unregistered-function-second", _mode("sync-stream")
        ),
        lambda: _names_unchecked(monkeypatch),
    )


def test_completed_response_taken_on_trust_fails_rn_stream_013(monkeypatch: pytest.MonkeyPatch) -> None:
    _proven(
        monkeypatch,
        "RN-STREAM-013",
        lambda: reg.test_eager_item_missing_from_completed_response_stops_with_receipts(_mode("sync-eager")),
        lambda: monkeypatch.setattr(rtr, "_same_stream_output", lambda streamed, completed: True),
    )


def test_computer_choice_let_through_fails_rn_choice_003(monkeypatch: pytest.MonkeyPatch) -> None:
    def patch() -> None:
        original: Any = rtr._Run.__init__

        def init(run: Any, params: Any, *args: Any, **kwargs: Any) -> None:
            # The choice checked without the computer case, then sent as the caller gave it.
            choice = params.get("tool_choice")
            if choice == {"type": "computer"}:
                original(run, {key: value for key, value in params.items() if key != "tool_choice"}, *args, **kwargs)
                run.request["tool_choice"] = choice
            else:
                original(run, params, *args, **kwargs)

        monkeypatch.setattr(rtr._Run, "__init__", init)

    _proven(
        monkeypatch,
        "RN-CHOICE-003",
        lambda: reg.test_choice_forcing_the_computer_is_refused(_mode("sync-plain")),
        patch,
    )


def test_ignored_computer_declarations_fail_rn_server_004(monkeypatch: pytest.MonkeyPatch) -> None:
    def without_computer(params: dict[str, Any]) -> dict[str, Any]:
        params["tools"] = [tool for tool in params.get("tools") or [] if tool.get("type") != "computer"]
        return params

    _proven(
        monkeypatch,
        "RN-SERVER-004",
        lambda: reg.test_computer_declaration_needs_one_registered_computer(
            False, [{"type": "computer"}], _mode("async-stream")
        ),
        lambda: _run_init_with(monkeypatch, without_computer),
    )


def test_undeclared_computer_fails_rn_server_005(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._registry

    def patch() -> None:
        monkeypatch.setattr(
            rtr,
            "_registry",
            lambda browser, computer, functions: [
                tool for tool in original(browser, computer, functions) if tool["type"] != "computer"
            ],
        )

    _proven(
        monkeypatch,
        "RN-SERVER-005",
        lambda: reg.test_registered_computer_is_declared_by_default(_mode("sync-plain")),
        patch,
    )


def test_storage_turned_on_fails_rn_server_006(monkeypatch: pytest.MonkeyPatch) -> None:
    _proven(
        monkeypatch,
        "RN-SERVER-006",
        lambda: reg.test_runner_never_turns_storage_on(None, _mode("async-plain")),
        lambda: _run_init_with(monkeypatch, lambda params: {**params, "store": True}),
    )


@pytest.mark.parametrize("limit", [0, 1.5, True])
def test_coerced_concurrency_limit_fails_rn_conc_011(monkeypatch: pytest.MonkeyPatch, limit: object) -> None:
    original = rtr.ResponsesToolRunner.iterate

    def coercing(runner: Any, client: Any, params: Any, **kwargs: Any) -> Any:
        if "max_concurrent_calls" in kwargs:
            kwargs["max_concurrent_calls"] = max(1, int(kwargs["max_concurrent_calls"]))
        return original(runner, client, params, **kwargs)

    _proven(
        monkeypatch,
        "RN-CONC-011",
        lambda: reg.test_max_concurrent_calls_must_be_a_positive_integer(limit, _mode("sync-stream")),
        lambda: monkeypatch.setattr(rtr.ResponsesToolRunner, "iterate", coercing),
    )


def test_lenient_early_names_fail_rn_early_008(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._early_execution

    def lenient(early: Any, tools: Any) -> Any:
        registered = {tool["name"] for tool in tools if tool["type"] == "function"}
        if isinstance(early, dict) and isinstance(early.get("functions"), list):
            names = [name for name in dict.fromkeys(early["functions"]) if name in registered]
            early = {**early, "functions": names}
        return original(early, tools)

    _proven(
        monkeypatch,
        "RN-EARLY-008",
        lambda: reg.test_early_execution_names_must_be_registered_and_unique(["missing"], _mode("sync-plain")),
        lambda: monkeypatch.setattr(rtr, "_early_execution", lenient),
    )


def test_streaming_by_default_fails_rn_param_002(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr.ResponsesToolRunner.run

    def streaming(runner: Any, client: Any, params: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("stream", True)
        return original(runner, client, params, **kwargs)

    _proven(
        monkeypatch,
        "RN-PARAM-002",
        lambda: reg.test_runs_are_not_streamed_unless_asked("sync"),
        lambda: monkeypatch.setattr(rtr.ResponsesToolRunner, "run", streaming),
    )


# ------------------------------------------------------------------------------------------ Decisions


def _decisions_run_wrapped(monkeypatch: pytest.MonkeyPatch, name: str, around: Callable[..., Any]) -> None:
    """``dtr._Run.<name>`` replaced by ``around(original, run, *args, **kwargs)``."""
    original = getattr(dtr._Run, name)
    monkeypatch.setattr(dtr._Run, name, lambda run, *args, **kwargs: around(original, run, *args, **kwargs))


def test_descriptions_filled_in_fail_rn_dec_013(monkeypatch: pytest.MonkeyPatch) -> None:
    def described(original: Any, run: Any, values: Any) -> Any:
        values = [{**value, "description": value.get("description") or value.get("id")} for value in values]
        return original(run, values)

    _proven(
        monkeypatch,
        "RN-DEC-013",
        lambda: decisions.test_invalid_candidates_are_refused_before_any_request(
            decisions._without("description"), "sync"
        ),
        lambda: _decisions_run_wrapped(monkeypatch, "candidates", described),
    )


def test_result_without_decisions_fails_rn_dec_014(monkeypatch: pytest.MonkeyPatch) -> None:
    def bare(original: Any, run: Any, status: Any) -> Any:
        return {**original(run, status), "decisions": []}

    _proven(
        monkeypatch,
        "RN-DEC-014",
        lambda: decisions.test_result_carries_the_native_decisions("async"),
        lambda: _decisions_run_wrapped(monkeypatch, "result", bare),
    )


def test_failed_executor_reported_completed_fails_rn_dec_015(monkeypatch: pytest.MonkeyPatch) -> None:
    def everything_completed(original: Any, run: Any, reason: Any) -> Any:
        run.completed = list(run.attempted)
        return original(run, reason)

    _proven(
        monkeypatch,
        "RN-DEC-015",
        lambda: decisions.test_failed_executor_is_attempted_not_completed("sync"),
        lambda: _decisions_run_wrapped(monkeypatch, "error", everything_completed),
    )


def test_cancelled_predicate_ignored_fails_rn_dec_016(monkeypatch: pytest.MonkeyPatch) -> None:
    _proven(
        monkeypatch,
        "RN-DEC-016",
        lambda: decisions.test_cancelled_predicate_stops_requests_and_executors("async"),
        lambda: monkeypatch.setattr(dtr._Run, "check", lambda run: None),
    )


def test_plain_cancellation_fails_rn_dec_017(monkeypatch: pytest.MonkeyPatch) -> None:
    _proven(
        monkeypatch,
        "RN-DEC-017",
        decisions.test_async_cancellation_raises_decisions_cancelled_error,
        lambda: monkeypatch.setattr(
            dtr, "DecisionsToolRunnerCancelledError", lambda attempted, completed: asyncio.CancelledError()
        ),
    )


def test_safety_identifier_dropped_fails_rn_dec_018(monkeypatch: pytest.MonkeyPatch) -> None:
    def without(original: Any, run: Any, observation: Any, candidates: Any) -> Any:
        request = dict(original(run, observation, candidates))
        request.pop("safety_identifier", None)
        return request

    _proven(
        monkeypatch,
        "RN-DEC-018",
        lambda: decisions.test_model_task_and_safety_identifier_are_sent("sync"),
        lambda: _decisions_run_wrapped(monkeypatch, "request", without),
    )


def test_unknown_params_dropped_fails_rn_dec_019(monkeypatch: pytest.MonkeyPatch) -> None:
    def filtered(original: Any, run: Any, params: Any, *args: Any) -> Any:
        kept = {key: value for key, value in params.items() if key in ("model", "input", "safety_identifier")}
        return original(run, kept, *args)

    _proven(
        monkeypatch,
        "RN-DEC-019",
        lambda: decisions.test_responses_params_and_streaming_are_refused({"store": True}, "sync"),
        lambda: _decisions_run_wrapped(monkeypatch, "__init__", filtered),
    )


def test_fallback_to_responses_fails_rn_dec_020(monkeypatch: pytest.MonkeyPatch) -> None:
    original = dtr.DecisionsToolRunner.run

    def falling_back(runner: Any, client: Any, params: Any, **kwargs: Any) -> Any:
        try:
            return original(runner, client, params, **kwargs)
        except dtr.DecisionsToolRunnerError:
            # A "helpful" retry through Responses when Decisions is unavailable: what the documents rule out.
            with contextlib.suppress(Exception):
                client.responses.create(model=params["model"], input=params["input"])
            raise

    _proven(
        monkeypatch,
        "RN-DEC-020",
        lambda: decisions.test_decisions_errors_never_fall_back_to_responses("decisions-access-denied", "sync"),
        lambda: monkeypatch.setattr(dtr.DecisionsToolRunner, "run", falling_back),
    )


# ------------------------------------------------------------------------------------------ runner lifecycle


@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_close_reporting_closed_while_active_fails_rn_life_001(monkeypatch: pytest.MonkeyPatch, flavour: str) -> None:
    kind = rtr.ResponsesToolRunner if flavour == "sync" else rtr.AsyncResponsesToolRunner
    _proven(
        monkeypatch,
        "RN-LIFE-001",
        lambda: lifecycle.test_responses_runner_close_drains_then_refuses(flavour),
        lambda: monkeypatch.setattr(kind, "close", lambda runner: {"status": "closed"}),
    )


def test_decisions_close_reporting_closed_fails_rn_life_002(monkeypatch: pytest.MonkeyPatch) -> None:
    _proven(
        monkeypatch,
        "RN-LIFE-002",
        lambda: lifecycle.test_decisions_runner_close_drains_then_refuses("sync"),
        lambda: monkeypatch.setattr(dtr.DecisionsToolRunner, "close", lambda runner: {"status": "closed"}),
    )


@pytest.mark.parametrize(
    "check",
    [
        lambda: lifecycle.test_responses_runner_refuses_a_second_run_while_busy("sync"),
        lambda: lifecycle.test_decisions_runner_refuses_a_second_run_while_busy("async"),
    ],
    ids=["responses-sync", "decisions-async"],
)
def test_admitting_concurrent_runs_fails_rn_life_003(
    monkeypatch: pytest.MonkeyPatch, check: Callable[[], None]
) -> None:
    def enter(lifecycle_state: Any) -> None:
        # Still refuses a closed helper, but no longer notices one that is busy.
        with lifecycle_state._lock:
            if lifecycle_state._closed:
                raise RuntimeError("closed")
            lifecycle_state._active = True

    _proven(
        monkeypatch, "RN-LIFE-003", check, lambda: monkeypatch.setattr(tool_lifecycle.ToolLifecycle, "enter", enter)
    )


# ------------------------------------------------------------------------------------------ turn rules


def test_every_call_eligible_for_supplied_outputs_fails_rn_turn_004(monkeypatch: pytest.MonkeyPatch) -> None:
    def turn(run: Any, response: Any, snapshot: Any, step: int, final: bool, reject: bool, names: Any) -> Any:
        # Eligibility over the whole response, attempted and native calls included.
        run.active_step = step
        eligible = frozenset(item.call_id for item in snapshot.output if getattr(item, "call_id", None))
        return rtr.ResponsesRunnerTurn(
            response=response,
            step=step,
            final=final,
            tools_executed=bool(run.outputs),
            attempted_call_ids=tuple(run.attempted),
            completed_call_ids=tuple(run.completed),
            _supply=functools.partial(run.supply, step, eligible, reject),
            _append=functools.partial(run.append_user_text, step, final),
        )

    for check in (
        lambda: turns.test_supply_outputs_refuses_an_attempted_function(_mode("sync-eager")),
        lambda: turns.test_supply_outputs_refuses_a_computer_call(
            {"type": "function_call_output", "call_id": "c1", "output": turns.CANARY}, _mode("async-plain")
        ),
    ):
        check()
    monkeypatch.setattr(rtr._Run, "turn", turn)
    _fails_on("RN-TURN-004", lambda: turns.test_supply_outputs_refuses_an_attempted_function(_mode("sync-eager")))
    _fails_on(
        "RN-TURN-004",
        lambda: turns.test_supply_outputs_refuses_a_computer_call(
            {"type": "function_call_output", "call_id": "c1", "output": turns.CANARY}, _mode("async-plain")
        ),
    )


def test_text_on_stale_turns_fails_rn_turn_005(monkeypatch: pytest.MonkeyPatch) -> None:
    def append(run: Any, step: int, final: bool, text: str) -> None:
        if final or type(text) is not str or not text.strip():
            raise ValueError("Only a non-final turn can append user text.")
        run.user_text.append(text)

    _proven(
        monkeypatch,
        "RN-TURN-005",
        lambda: turns.test_append_user_text_refused_on_stale_and_closed_turns(_mode("sync-stream")),
        lambda: monkeypatch.setattr(rtr._Run, "append_user_text", append),
    )


def test_objects_serialised_as_text_fail_rn_turn_006(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._Run.append_user_text

    def append(run: Any, step: int, final: bool, text: Any) -> None:
        original(run, step, final, text if isinstance(text, str) else json.dumps(text))

    _proven(
        monkeypatch,
        "RN-TURN-006",
        lambda: turns.test_append_user_text_accepts_only_text(
            {"type": "function_call_output", "call_id": "c1", "output": turns.CANARY}, _mode("async-plain")
        ),
        lambda: monkeypatch.setattr(rtr._Run, "append_user_text", append),
    )


def test_guidance_restarting_the_budget_fails_rn_turn_007(monkeypatch: pytest.MonkeyPatch) -> None:
    def patch() -> None:
        original_append = rtr._Run.append_boundary_text
        original_begin = rtr._Run.begin

        def append(run: Any) -> bool:
            appended = bool(original_append(run))
            if appended:
                run.guided = True
            return appended

        def begin(run: Any, last_step: bool) -> None:
            # After guidance the last allowed request is no longer treated as the last one.
            original_begin(run, last_step and not getattr(run, "guided", False))

        monkeypatch.setattr(rtr._Run, "append_boundary_text", append)
        monkeypatch.setattr(rtr._Run, "begin", begin)

    _proven(
        monkeypatch,
        "RN-TURN-007",
        lambda: turns.test_append_user_text_keeps_the_request_budget(_mode("sync-plain")),
        patch,
    )


# ------------------------------------------------------------------------------ typed functions, server results


def test_dict_instead_of_model_fails_rn_typed_001(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr.parse_function_tool_arguments  # type: ignore[attr-defined]

    def as_dict(**kwargs: Any) -> Any:
        parsed = original(**kwargs)
        return parsed.model_dump() if hasattr(parsed, "model_dump") else parsed

    _proven(
        monkeypatch,
        "RN-TYPED-001",
        lambda: typed.test_typed_executor_receives_the_model_instance("async"),
        lambda: monkeypatch.setattr(rtr, "parse_function_tool_arguments", as_dict),
    )


def test_unvalidated_typed_arguments_fail_rn_typed_002(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr.parse_function_tool_arguments  # type: ignore[attr-defined]

    def lenient(*, input_tools: Any, function_call: Any) -> Any:
        try:
            return original(input_tools=input_tools, function_call=function_call)
        except Exception:
            # Built without validation from whatever JSON object arrived.
            return ReferenceArguments.model_construct(**json.loads(function_call.arguments))

    _proven(
        monkeypatch,
        "RN-TYPED-002",
        lambda: typed.test_arguments_the_model_refuses_never_reach_the_executor(
            "typed-arguments-missing-field", _mode("sync-plain")
        ),
        lambda: monkeypatch.setattr(rtr, "parse_function_tool_arguments", lenient),
    )


def test_outputs_stringified_fail_rn_typed_003(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._supplied_result

    def stringified(value: Any) -> Any:
        try:
            return original(value)
        except ValueError:
            return str(value)

    _proven(
        monkeypatch,
        "RN-TYPED-003",
        lambda: typed.test_invalid_typed_output_stops_without_repeating_the_call(42, _mode("sync-stream")),
        lambda: monkeypatch.setattr(rtr, "_supplied_result", stringified),
    )


def test_file_search_results_trimmed_fail_rn_server_007(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._wire

    def trimmed(item: Any) -> Any:
        wire = original(item)
        if isinstance(wire, dict) and wire.get("type") == "file_search_call":
            wire = {**wire, "results": None}
        return wire

    _proven(
        monkeypatch,
        "RN-SERVER-007",
        lambda: typed.test_file_search_and_code_interpreter_results_are_kept_unchanged(_mode("sync-plain")),
        lambda: monkeypatch.setattr(rtr, "_wire", trimmed),
    )


def test_unfinished_server_results_taken_as_done_fail_rn_server_008(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._validate_server_item

    def finished(item: Any, tools: Any) -> None:
        if item.get("status") in ("in_progress", "incomplete"):
            item = {**item, "status": "completed"}
        original(item, tools)

    _proven(
        monkeypatch,
        "RN-SERVER-008",
        lambda: typed.test_unfinished_server_result_stops_before_local_effects(
            "server-tool-in-progress", _mode("async-stream")
        ),
        lambda: monkeypatch.setattr(rtr, "_validate_server_item", finished),
    )


def test_overrides_only_with_a_policy_fail_rn_turn_008(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._Run.turn

    def without_policy(run: Any, response: Any, snapshot: Any, step: int, final: bool, reject: bool, names: Any) -> Any:
        # No early_execution policy given: nothing counted as replaceable.
        return original(run, response, snapshot, step, final, reject, frozenset())

    _proven(
        monkeypatch,
        "RN-TURN-008",
        lambda: typed.test_supplied_output_at_server_tool_boundary_of_eager_run(_mode("sync-eager")),
        lambda: monkeypatch.setattr(rtr._Run, "turn", without_policy),
    )


# ------------------------------------------------------------------------------------------ early-execution policy


def _receiving_with(monkeypatch: pytest.MonkeyPatch, policy_for: Callable[[Any, Any, Any], Any]) -> None:
    """Every streamed item received under the early-execution policy ``policy_for(run, item, policy)`` gives
    instead of the runner's own."""
    original = rtr._Run.receive

    def patched(run: Any, index: int, item: Any, policy: Any) -> bool:
        return bool(original(run, index, item, policy_for(run, item, policy)))

    monkeypatch.setattr(rtr._Run, "receive", patched)


def test_policy_ignored_once_a_hook_answers_fails_rn_early_009(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every streamed call is offered to the hook as if the policy listed it: the hook's execute decides alone.
    _proven(
        monkeypatch,
        "RN-EARLY-009",
        lambda: early.test_hook_cannot_start_a_call_outside_the_policy(_mode("sync-eager")),
        lambda: _receiving_with(monkeypatch, lambda run, item, policy: None),
    )


def test_deferral_holding_only_its_own_call_fails_rn_early_010(monkeypatch: pytest.MonkeyPatch) -> None:
    def each_on_its_own(run: Any, item: Any, policy: Any) -> Any:
        run.deferred = False
        return policy

    _proven(
        monkeypatch,
        "RN-EARLY-010",
        lambda: early.test_one_deferral_holds_allowed_later_calls(_mode("async-eager")),
        lambda: _receiving_with(monkeypatch, each_on_its_own),
    )


def test_policy_turning_eager_on_fails_rn_early_011(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr.ResponsesToolRunner.iterate

    def eager_with_policy(runner: Any, client: Any, params: Any, **kwargs: Any) -> Any:
        if runner._early_execution is not None and kwargs.get("stream"):
            kwargs["eager"] = True
        return original(runner, client, params, **kwargs)

    _proven(
        monkeypatch,
        "RN-EARLY-011",
        lambda: early.test_policy_needs_eager(_mode("sync-stream")),
        lambda: monkeypatch.setattr(rtr.ResponsesToolRunner, "iterate", eager_with_policy),
    )


class _LivePolicy(tuple[frozenset[str], bool]):
    """The runner's policy read through to the caller's dict on every use (no copy taken)."""

    policy: dict[str, Any]

    def __getitem__(self, index: Any) -> Any:
        if index == 0:
            return frozenset(self.policy.get("functions", []))
        return bool(self.policy.get("computer", False))


def test_policy_kept_by_reference_fails_rn_early_012(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._early_execution

    def live(policy: Any, tools: Any) -> Any:
        copied = original(policy, tools)
        if copied is None:
            return None
        view = _LivePolicy(copied)
        view.policy = policy
        return view

    _proven(
        monkeypatch,
        "RN-EARLY-012",
        lambda: early.test_policy_is_copied_at_construction(True, _mode("sync-eager")),
        lambda: monkeypatch.setattr(rtr, "_early_execution", live),
    )


def test_computer_flag_governing_the_function_fails_rn_early_013(monkeypatch: pytest.MonkeyPatch) -> None:
    def by_flag(run: Any, item: Any, policy: Any) -> Any:
        if policy is not None and getattr(item, "name", None) == "computer":
            names = set(policy[0]) - {"computer"} | ({"computer"} if policy[1] else set())
            policy = (frozenset(names), policy[1])
        return policy

    _proven(
        monkeypatch,
        "RN-EARLY-013",
        lambda: early.test_function_named_computer_is_selected_by_name(_mode("async-eager")),
        lambda: _receiving_with(monkeypatch, by_flag),
    )


# ------------------------------------------------------------------------------------------ stream events, failures


def test_cancelled_predicate_ignored_fails_rn_cancel_003(monkeypatch: pytest.MonkeyPatch) -> None:
    _proven(
        monkeypatch,
        "RN-CANCEL-003",
        lambda: stream_errors.test_cancelled_between_stream_events_stops_everything_after(_mode("sync-stream")),
        lambda: monkeypatch.setattr(rtr._Run, "check", lambda run: None),
    )


def test_live_events_handed_to_on_event_fail_rn_stream_014(monkeypatch: pytest.MonkeyPatch) -> None:
    _proven(
        monkeypatch,
        "RN-STREAM-014",
        lambda: stream_errors.test_edited_stream_events_change_nothing(_mode("sync-eager")),
        lambda: monkeypatch.setattr(rtr, "model_copy", lambda model, deep=False: model),
    )


def test_failed_browser_calls_left_out_of_receipts_fail_rn_browser_003(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._Run.add

    def add(run: Any, item: Any, output: Any) -> Any:
        result = original(run, item, output)
        if run.browser_failed and getattr(item, "name", None) in run.browser_names:
            run.completed = [call_id for call_id in run.completed if call_id != item.call_id]
        return result

    _proven(
        monkeypatch,
        "RN-BROWSER-003",
        lambda: stream_errors.test_refused_and_skipped_browser_calls_are_completed_receipts(_mode("sync-plain")),
        lambda: monkeypatch.setattr(rtr._Run, "add", add),
    )


def _executed_twice(monkeypatch: pytest.MonkeyPatch, on_failure_only: bool) -> None:
    original = rtr.ResponsesToolRunner._execute_function

    def twice(runner: Any, run: Any, item: Any) -> Any:
        try:
            result = original(runner, run, item)
        except Exception:
            return original(runner, run, item)
        return result if on_failure_only else original(runner, run, item)

    monkeypatch.setattr(rtr.ResponsesToolRunner, "_execute_function", twice)


def test_failed_function_retried_fails_rn_err_003(monkeypatch: pytest.MonkeyPatch) -> None:
    _proven(
        monkeypatch,
        "RN-ERR-003",
        lambda: stream_errors.test_failed_function_is_never_run_again(_mode("sync-plain")),
        lambda: _executed_twice(monkeypatch, on_failure_only=True),
    )


def test_action_run_again_fails_rn_err_004(monkeypatch: pytest.MonkeyPatch) -> None:
    # Not a retry-specific regression: any second dispatch of c1 around the retried requests must be caught.
    _proven(
        monkeypatch,
        "RN-ERR-004",
        lambda: stream_errors.test_http_retry_never_runs_an_action_again(_mode("sync-stream")),
        lambda: _executed_twice(monkeypatch, on_failure_only=False),
    )


def test_failure_text_appended_fails_rn_err_005(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._Run.error

    def detailed(run: Any, message: str) -> Any:
        cause = sys.exc_info()[1]
        if message == stream_errors.GENERIC and cause is not None:
            message = f"{message} ({cause})"
        return original(run, message)

    _proven(
        monkeypatch,
        "RN-ERR-005",
        lambda: stream_errors.test_driver_parser_and_storage_failures_keep_the_generic_message(
            "one-function", "executor", _mode("sync-plain")
        ),
        lambda: monkeypatch.setattr(rtr._Run, "error", detailed),
    )


def test_mismatch_reported_generically_fails_rn_err_006(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rtr._Run.error

    def generic(run: Any, message: str) -> Any:
        return original(run, stream_errors.GENERIC if "differs" in message else message)

    _proven(
        monkeypatch,
        "RN-ERR-006",
        lambda: stream_errors.test_mismatched_stream_output_has_its_own_message(_mode("async-eager")),
        lambda: monkeypatch.setattr(rtr._Run, "error", generic),
    )


# ------------------------------------------------------------------------------------------ stream lifetime


def test_streams_left_open_fail_rn_stream_015(monkeypatch: pytest.MonkeyPatch) -> None:
    def patch() -> None:
        # The response streams are abandoned instead of closed (the underlying bodies stay open).
        monkeypatch.setattr(openai_streaming.Stream, "close", lambda stream: None)
        monkeypatch.setattr(streaming_responses.ResponseStream, "close", lambda stream: None)

    _proven(
        monkeypatch,
        "RN-STREAM-015",
        lambda: stream_closing.test_stream_closed_when_the_run_is_cancelled_mid_stream(_mode("sync-stream")),
        patch,
    )


def test_consent_bypassed_for_runner_calls_fails_rn_early_014(monkeypatch: pytest.MonkeyPatch) -> None:
    original = browser_module.BrowserToolset._execute

    def unguarded(toolset: Any, call: Any, **kwargs: Any) -> Any:
        # The runner's calls approved on the toolset's behalf: its own confirm and url_policy are never asked.
        saved = toolset.confirm, toolset.url_policy
        toolset.confirm, toolset.url_policy = (lambda context: True), (lambda context, url: True)
        try:
            return original(toolset, call, **kwargs)
        finally:
            toolset.confirm, toolset.url_policy = saved

    _proven(
        monkeypatch,
        "RN-EARLY-014",
        lambda: early_consent.test_early_browser_action_is_still_approved_first(
            "early-navigate", "navigate", ["url_policy", "confirm"], _mode("sync-eager")
        ),
        lambda: monkeypatch.setattr(browser_module.BrowserToolset, "_execute", unguarded),
    )
