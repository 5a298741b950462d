"""The checks added for statements no clause covered can fail: each test patches one misbehaviour into the installed
Python SDK and requires the check to fail on exactly its clause, after the unpatched SDK passed the same case (the
style of tests/test_sdk_findings.py).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

import openai.lib.browser as browser_module
import openai.lib.responses_tool_runner as rtr
import pytest

from conformance.assertions import ClauseViolation
from conformance.contracts.runner import (
    check_diagnostic_observer,
    check_file_outcomes,
    check_function_cancelled,
    check_function_outputs,
)
from conformance.rig import parse_mode

SYNC = parse_mode("sync-plain")


def _fails_on(clause: str, check: Callable[[], None]) -> None:
    with pytest.raises(ClauseViolation) as caught:
        check()
    assert caught.value.clause_id == clause, f"failed on {caught.value.clause_id}, expected {clause}: {caught.value}"


def test_unfinished_file_outcome_counted_as_success_fails_rn_browser_004(monkeypatch: pytest.MonkeyPatch) -> None:
    check = check_file_outcomes.test_unfinished_file_outcome_skips_rest_of_response
    check("refused", "none", SYNC)
    original = browser_module._output

    def output(call: Any, state: Any, result: object, error: str | None) -> Any:
        item, ok = original(call, state, result, error)
        # The runner is told every file transfer succeeded, whatever its outcome said.
        return item, ok or (error is None and call.name[8:] in browser_module._FILE_TRANSFERS)

    monkeypatch.setattr(browser_module, "_output", output)
    _fails_on("RN-BROWSER-004", lambda: check("refused", "none", SYNC))


def test_protected_read_run_despite_earlier_failure_fails_rn_browser_005(monkeypatch: pytest.MonkeyPatch) -> None:
    check = check_file_outcomes.test_protected_read_skipped_after_failure_gets_the_refusal
    check(SYNC)
    original = browser_module.BrowserToolset._execute

    def execute(self: Any, call: Any, *, skip: bool = False, **options: Any) -> Any:
        # A protected read is asked about and run as if nothing earlier in the response had failed.
        protected = call.name[8:] in self._confirm_reads
        return original(self, call, skip=skip and not protected, **options)

    monkeypatch.setattr(browser_module.BrowserToolset, "_execute", execute)
    _fails_on("RN-BROWSER-005", lambda: check(SYNC))


def test_image_parts_dropped_from_function_output_fails_rn_loop_005(monkeypatch: pytest.MonkeyPatch) -> None:
    check = check_function_outputs.test_function_part_list_is_sent_back_intact
    parts = check_function_outputs.TEXT_AND_IMAGE
    check(parts, SYNC)
    original = rtr._supplied_result

    def supplied(value: object) -> Any:
        # Only the text parts of a list output survive.
        result = original(value)
        if isinstance(result, list):
            return [part for part in result if part.get("type") == "input_text"]
        return result

    monkeypatch.setattr(rtr, "_supplied_result", supplied)
    _fails_on("RN-LOOP-005", lambda: check(parts, SYNC))


def test_function_output_for_mcp_approval_request_fails_rn_mcp_017(monkeypatch: pytest.MonkeyPatch) -> None:
    check = check_function_outputs.test_no_function_output_for_remote_mcp_items
    check(SYNC)
    original = rtr._Run.add

    def add(self: Any, item: Any, output: Any) -> None:
        original(self, item, output)
        # The approval request is also answered as if it were a local function call.
        if item.type == "mcp_approval_request":
            self.outputs.append({"type": "function_call_output", "call_id": item.id, "output": "approved"})

    monkeypatch.setattr(rtr._Run, "add", add)
    _fails_on("RN-MCP-017", lambda: check(SYNC))


def test_function_given_a_dead_cancelled_predicate_fails_rn_cancel_004(monkeypatch: pytest.MonkeyPatch) -> None:
    check = check_function_cancelled.test_function_declaring_cancelled_gets_the_runs_predicate
    check(SYNC)
    original = rtr.invoke

    def invoke(function: Any, *args: Any, cancelled: Any = None, **options: Any) -> Any:
        # Callables declaring cancelled get a predicate of their own that never reports a stop.
        return original(function, *args, cancelled=None if cancelled is None else (lambda: False), **options)

    monkeypatch.setattr(rtr, "invoke", invoke)
    _fails_on("RN-CANCEL-004", lambda: check(SYNC))


def test_runner_waiting_for_the_observers_awaitable_fails_rn_diag_007(monkeypatch: pytest.MonkeyPatch) -> None:
    check = check_diagnostic_observer.test_observer_work_neither_delays_nor_changes_the_run
    check("awaitable", SYNC)
    original = rtr.emit_tool_diagnostic
    waited: list[object] = []

    def emit(observer: Any, *args: Any, **options: Any) -> None:
        def waiting(event: Any) -> None:
            # The runner waits for what the observer returned (once is enough to show it) before it goes on.
            result = observer(event)
            if inspect.isawaitable(result) and not waited:
                waited.append(result)

                async def settle() -> None:
                    await result

                asyncio.run(settle())

        original(None if observer is None else waiting, *args, **options)

    monkeypatch.setattr(rtr, "emit_tool_diagnostic", emit)
    _fails_on("RN-DIAG-007", lambda: check("awaitable", SYNC))
