"""Busy and close (spec/000 "Streaming and interrupted actions", spec/002 "Close and cancel work"), for the
browser and the computer toolsets."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import pytest

from conformance.assertions import expect
from conformance.contracts.toolset._toolsets import (
    VALID_ARGUMENTS,
    browser_toolset,
    computer_call,
    execute,
    expect_stop,
    function_call,
    gated,
    payload,
)
from conformance.flavours import Flavour
from conformance.probes import Act, Script, browser_probe, computer_probe
from conformance.rig import computer_toolset

WAIT = [{"type": "wait"}]


class _Reentry:
    """``act``, for a driver member or callback, tries ``attempt(toolset)`` mid-call on the toolset under test (set
    ``toolset`` once it is built), records what that returned or raised in ``outcome`` and answers ``reply``."""

    def __init__(self, flavour: Flavour, attempt: Callable[[Any], Any], reply: object = None) -> None:
        self.toolset: Any = None
        self.outcome: list[object] = []

        def sync_try(_: object) -> object:
            try:
                self.outcome.append(attempt(self.toolset))
            except Exception as error:
                self.outcome.append(error)
            return reply

        async def async_try(_: object) -> object:
            try:
                result = attempt(self.toolset)
                self.outcome.append(await result if asyncio.iscoroutine(result) else result)
            except Exception as error:
                self.outcome.append(error)
            return reply

        self.act = Act(async_try if flavour == "async" else sync_try)


def _refused_as_busy(outcome: list[object], what: str) -> None:
    """The one overlapping attempt a ``_Reentry`` recorded must have raised an error that says busy."""
    expect(
        len(outcome) == 1 and isinstance(outcome[0], Exception) and "busy" in str(outcome[0]).lower(),
        "TS-LIFE-001",
        f"{what} was not refused as busy: {outcome}",
    )


@pytest.mark.clause("TS-LIFE-001")
@pytest.mark.parametrize("during", ["driver", "confirm"])
def test_overlapping_browser_call_fails_as_busy(flavour: Flavour, during: str) -> None:
    second = function_call("get_page_text", {"tab_id": None}, call_id="call-2")
    reentry = _Reentry(flavour, lambda toolset: toolset.execute(second), reply=None if during == "driver" else True)
    act = reentry.act
    driver = browser_probe(flavour, ["click", "get_page_text"], replies={"click": act} if during == "driver" else {})
    confirm = driver.log.callback("confirm", act if during == "confirm" else True, flavour=flavour)
    reentry.toolset = browser_toolset(flavour, driver, members=["click", "get_page_text"], confirm=confirm)
    report = payload(execute(reentry.toolset, function_call("click", VALID_ARGUMENTS["click"])))
    expect(report.get("ok") is True, "TS-LIFE-001", f"the first call failed: {report.get('error')}")
    _refused_as_busy(reentry.outcome, f"an overlapping call during {during}")
    expect(driver.log.count("get_page_text") == 0, "TS-LIFE-001", "the overlapping call reached the driver")


@pytest.mark.clause("TS-LIFE-001")
@pytest.mark.parametrize("during", ["driver", "before_action"])
def test_overlapping_computer_call_fails_as_busy(flavour: Flavour, during: str) -> None:
    second = computer_call(WAIT, call_id="cc-2")
    reentry = _Reentry(flavour, lambda toolset: toolset.execute(second), reply=None if during == "driver" else True)
    act = reentry.act
    driver = computer_probe(flavour, replies={"wait": act} if during == "driver" else {})
    reentry.toolset = computer_toolset(flavour, driver)
    options = {"before_action": driver.log.callback("before_action", Script(act, True), flavour=flavour)}
    execute(reentry.toolset, computer_call(WAIT), **(options if during == "before_action" else {}))
    _refused_as_busy(reentry.outcome, "an overlapping computer call")
    expect(driver.log.count("wait") == 1, "TS-LIFE-001", "the overlapping computer call reached the driver")


@pytest.mark.clause("TS-LIFE-002")
def test_browser_close_drains_then_closes(flavour: Flavour) -> None:
    closing = _Reentry(flavour, lambda toolset: toolset.close(), reply="text")
    driver = browser_probe(flavour, ["get_page_text"], replies={"get_page_text": closing.act})
    closing.toolset = toolset = browser_toolset(flavour, driver, members=["get_page_text"])
    report = payload(execute(toolset, function_call("get_page_text", {"tab_id": None})))
    outcome = closing.outcome
    expect(outcome == [{"status": "draining"}], "TS-LIFE-002", f"close() during a call returned {outcome}")
    expect(report.get("ok") is True, "TS-LIFE-002", "the call active during close() did not finish")
    expect(toolset.close() == {"status": "closed"}, "TS-LIFE-002", "close() after the call did not report closed")
    before = len(driver.log.calls)
    with expect_stop("TS-LIFE-002", "a call after close()"):
        execute(toolset, function_call("get_page_text", {"tab_id": None}))
    expect(len(driver.log.calls) == before, "TS-LIFE-002", "a call after close() reached the driver")


@pytest.mark.clause("TS-LIFE-002")
def test_idle_close_is_closed_and_synchronous(flavour: Flavour) -> None:
    toolset, driver = gated(flavour, ["click"])
    status = toolset.close()
    expect(status == {"status": "closed"}, "TS-LIFE-002", f"idle close() returned {status!r}")
    with expect_stop("TS-LIFE-002", "a call on a closed toolset"):
        execute(toolset, function_call("click", VALID_ARGUMENTS["click"]))
    expect(driver.log.calls == [], "TS-LIFE-002", f"a closed toolset reached {driver.log.names()}")


@pytest.mark.clause("TS-LIFE-002")
def test_computer_close_drains_then_closes(flavour: Flavour) -> None:
    closing = _Reentry(flavour, lambda toolset: toolset.close())
    driver = computer_probe(flavour, replies={"wait": closing.act})
    closing.toolset = toolset = computer_toolset(flavour, driver)
    output = execute(toolset, computer_call(WAIT))
    outcome = closing.outcome
    expect(outcome == [{"status": "draining"}], "TS-LIFE-002", f"computer close() during a call returned {outcome}")
    expect(output.get("type") == "computer_call_output", "TS-LIFE-002", "the active computer call did not finish")
    expect(toolset.close() == {"status": "closed"}, "TS-LIFE-002", "computer close() afterwards was not closed")
    with expect_stop("TS-LIFE-002", "a computer call after close()"):
        execute(toolset, computer_call(WAIT, call_id="cc-3"))
    expect(driver.log.count("wait") == 1, "TS-LIFE-002", "a call after close() reached the computer driver")


@pytest.mark.clause("TS-LIFE-003")
def test_toolsets_never_close_the_driver(flavour: Flavour) -> None:
    toolset, driver = gated(flavour, ["click"])
    execute(toolset, function_call("click", VALID_ARGUMENTS["click"]))
    toolset.close()
    computer = computer_probe(flavour)
    helper = computer_toolset(flavour, computer)
    execute(helper, computer_call(WAIT))
    helper.close()
    expect(driver.log.count("driver.close") == 0, "TS-LIFE-003", "the browser toolset closed its driver")
    expect(computer.log.count("driver.close") == 0, "TS-LIFE-003", "the computer toolset closed its driver")


@pytest.mark.clause("TS-LIFE-004")
def test_computer_close_drains_while_a_stopped_runs_approval_is_pending(flavour: Flavour) -> None:
    # The run stops while before_action is still deciding: the session is not released (close() says draining)
    # until that callback has returned, and once it has, the stopped call runs no action and close() is closed.
    stopped: list[bool] = []
    outcome: list[object] = []
    holder: dict[str, Any] = {}

    def pending(_: object) -> bool:
        stopped.append(True)
        outcome.append(holder["toolset"].close())
        return True

    async def pending_async(action: object) -> bool:
        return pending(action)

    driver = computer_probe(flavour)
    holder["toolset"] = toolset = computer_toolset(flavour, driver)
    # A stopped call may end either way; only what close() said and what ran are judged.
    with contextlib.suppress(Exception):
        execute(
            toolset,
            computer_call([{"type": "click", "x": 1, "y": 2, "button": "left"}]),
            before_action=pending_async if flavour == "async" else pending,
            cancelled=lambda: bool(stopped),
        )
    expect(
        outcome == [{"status": "draining"}],
        "TS-LIFE-004",
        f"close() while the stopped run's approval was pending returned {outcome}",
    )
    expect(driver.log.names() == [], "TS-LIFE-004", f"the stopped call still ran {driver.log.names()}")
    expect(toolset.close() == {"status": "closed"}, "TS-LIFE-004", "close() after the approval settled was not closed")
