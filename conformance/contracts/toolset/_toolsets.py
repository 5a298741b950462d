"""Shared helpers for the toolset checks: build a toolset of either flavour, call it, read its output.

Every check runs in a sync and an async form; these helpers hide the difference so one test body covers both.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from openai.types.responses import ResponseComputerToolCall, ResponseFunctionToolCall

from conformance.assertions import violation
from conformance.flavours import Flavour
from conformance.probes import ProbeLog, browser_probe
from conformance.rig.runners import BrowserToolsetOf, browser_toolset, computer_toolset

# Fixed texts are part of the SDK's observable behaviour, but the documents only promise that a refusal or
# failure is reported with ok false; checks therefore look at ok/state/driver calls, not at these strings,
# except where the documents say the text passes through (BrowserError).

Toolset = BrowserToolsetOf


def function_call(member: str, arguments: dict[str, Any] | str, call_id: str = "call-1") -> ResponseFunctionToolCall:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ResponseFunctionToolCall(
        type="function_call", call_id=call_id, name=f"browser_{member}", arguments=text, status="completed"
    )


def execute(toolset: Any, call: Any, **options: Any) -> Any:
    """Run ``toolset.execute(call)`` to completion whatever its flavour."""
    result = toolset.execute(call, **options)
    if asyncio.iscoroutine(result):
        return asyncio.run(result)
    return result


def payload(output: Any) -> dict[str, Any]:
    """The JSON report of a browser function_call_output (its first input_text part)."""
    parts = output["output"]
    text = parts if isinstance(parts, str) else parts[0]["text"]
    assert isinstance(parts, str) or parts[0]["type"] == "input_text", "the report is not the first part"
    report: dict[str, Any] = json.loads(text)
    return report


def callback(log: ProbeLog, name: str, flavour: Flavour, reply: object = True, **options: Any) -> Callable[..., Any]:
    """A recording approval callback of the toolset's flavour."""
    return log.callback(name, reply, flavour=flavour, **options)


def gated(
    flavour: Flavour,
    members: Sequence[str],
    *,
    confirm_reply: object = True,
    policy_reply: object = True,
    replies: dict[str, object] | None = None,
    **options: Any,
) -> tuple[Toolset, Any]:
    """A toolset over a probe implementing ``members``, with recording confirm and url_policy."""
    driver = browser_probe(flavour, members, replies=replies)
    confirm = callback(driver.log, "confirm", flavour, confirm_reply)
    policy = callback(driver.log, "url_policy", flavour, policy_reply)
    toolset = browser_toolset(flavour, driver, members=list(members), confirm=confirm, url_policy=policy, **options)
    return toolset, driver


def computer_call(
    actions: Sequence[dict[str, Any]], *, checks: Sequence[dict[str, Any]] = (), call_id: str = "cc-1"
) -> ResponseComputerToolCall:
    return ResponseComputerToolCall.model_validate(
        {
            "type": "computer_call",
            "id": f"item-{call_id}",
            "call_id": call_id,
            "status": "completed",
            "pending_safety_checks": list(checks),
            "actions": list(actions),
        }
    )


# One valid argument object per member, used as the baseline that validation checks vary one field of.
VALID_ARGUMENTS: dict[str, dict[str, Any]] = {
    "navigate": {"url": "https://probe.example/next", "tab_id": None},
    "read_page": {"filter": "all", "tab_id": None},
    "get_page_text": {"tab_id": None},
    "find": {"query": "hours", "tab_id": None},
    "click": {"target": "ref-1", "tab_id": None},
    "type": {"text": "hello", "target": "ref-1", "tab_id": None},
    "key": {"keys": ["Enter"], "tab_id": None},
    "scroll": {"direction": "down", "amount": 3, "tab_id": None},
    "select_option": {"target": "ref-1", "values": ["a"], "tab_id": None},
    "hover": {"target": "ref-1", "tab_id": None},
    "screenshot": {"tab_id": None},
    "zoom": {"tab_id": None, "region": [0, 0, 10, 10]},
    "new_tab": {"url": "https://probe.example/new"},
    "list_tabs": {},
    "switch_tab": {"tab_id": "tab-1"},
    "close_tab": {"tab_id": "tab-1"},
    "scroll_to": {"target": "ref-1", "tab_id": None},
    "wait_for": {"text": "ready", "timeout_ms": 1000, "tab_id": None},
    "hover_at": {"tab_id": None, "x": 1, "y": 2},
    "set_checked": {"tab_id": None, "target": "ref-1", "checked": True},
    "click_at": {"tab_id": None, "x": 1, "y": 2, "button": "left", "click_count": 1, "keys": []},
    "drag_path": {"tab_id": None, "path": [{"x": 0, "y": 0}, {"x": 5, "y": 5}], "keys": []},
    "hold_keys": {"tab_id": None, "keys": ["a"], "duration_ms": 10},
    "read_page_scoped": {"tab_id": None, "root": None, "depth": 2, "filter": "all"},
    "read_diagnostics": {"tab_id": None, "source": "console", "limit": 10},
    "run_script": {"tab_id": None, "source": "1 + 1", "timeout_ms": 1000},
    "upload_file": {"grant_id": "grant-1"},
    "download_file": {"grant_id": "grant-1"},
}


@contextmanager
def expect_stop(clause: str, what: str) -> Iterator[None]:
    """The block must raise: the documents say the call stops (the run ends) without naming an exception type,
    so any exception counts, and finishing normally is a violation of ``clause``."""
    try:
        yield
    except Exception:
        return
    violation(clause, f"{what} did not stop the call")


__all__ = [
    "VALID_ARGUMENTS",
    "Toolset",
    "browser_toolset",
    "callback",
    "computer_call",
    "computer_toolset",
    "execute",
    "expect_stop",
    "function_call",
    "gated",
    "payload",
]
