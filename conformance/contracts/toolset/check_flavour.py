"""Sync/async flavour between toolsets and drivers (spec/000 "Driver contract", spec/002 "Browser driver
contract", "Computer driver contract")."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from conformance import python_only_reasons as python_only
from conformance.assertions import expect
from conformance.contracts.toolset._toolsets import (
    VALID_ARGUMENTS,
    browser_toolset,
    execute,
    function_call,
    payload,
)
from conformance.flavours import Flavour
from conformance.probes import browser_probe, computer_probe
from conformance.rig import computer_toolset

# Every check here is about the sync/async flavours, which only the Python SDK has.
pytestmark = pytest.mark.python_sdk_only(python_only.FLAVOUR_RULES)


def _other(flavour: Flavour) -> Flavour:
    return "async" if flavour == "sync" else "sync"


@pytest.mark.clause("TS-FLAV-001")
@pytest.mark.parametrize(
    "members", [["list_tabs"], ["get_page_text"], ["click"], ["run_script"]], ids=lambda names: names[0]
)
def test_browser_constructor_rejects_the_other_flavour(flavour: Flavour, members: list[str]) -> None:
    implemented = [name for name in members if name != "list_tabs"]
    driver = browser_probe(_other(flavour), implemented)
    confirm = driver.log.callback("confirm", flavour=flavour)
    with pytest.raises((TypeError, ValueError)):
        browser_toolset(flavour, driver, members=members, confirm=confirm)
    expect(driver.log.calls == [], "TS-FLAV-001", "construction called the driver")


@pytest.mark.clause("TS-FLAV-001")
def test_browser_constructor_rejects_a_single_mismatched_method(flavour: Flavour) -> None:
    # Any: the check swaps a method on the probe, which its class does not declare.
    driver: Any = browser_probe(flavour, ["get_page_text"])
    stranger: Any = browser_probe(_other(flavour), ["find"])
    driver.find = stranger.find
    with pytest.raises((TypeError, ValueError)):
        browser_toolset(flavour, driver, members=["get_page_text", "find"])


@pytest.mark.clause("TS-FLAV-001")
@pytest.mark.parametrize("wrapping", ["functools-wraps", "return-annotation"])
def test_wrapped_methods_keep_their_flavour(flavour: Flavour, wrapping: str) -> None:
    """A wrapper that preserves decorator metadata or declares its return type is a known flavour."""
    driver: Any = browser_probe(flavour, ["get_page_text"])
    other: Any = browser_probe(_other(flavour), ["get_page_text"])
    inner: Callable[..., Any] = other.get_page_text
    wrapper: Callable[..., Any]
    if wrapping == "functools-wraps":

        @functools.wraps(inner)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            return inner(*args, **kwargs)

        wrapper = wrapped
    elif flavour == "sync":

        def awaitable_text(*args: Any, **kwargs: Any) -> Awaitable[str]:
            result: Awaitable[str] = inner(*args, **kwargs)
            return result

        wrapper = awaitable_text
    else:

        def plain_text(*args: Any, **kwargs: Any) -> str:
            result: str = inner(*args, **kwargs)
            return result

        wrapper = plain_text
    driver.get_page_text = wrapper
    with pytest.raises((TypeError, ValueError)):
        browser_toolset(flavour, driver, members=["get_page_text"])


@pytest.mark.clause("TS-COMP-001", "TS-FLAV-001")
def test_computer_constructor_rejects_the_other_flavour(flavour: Flavour) -> None:
    with pytest.raises((TypeError, ValueError)):
        computer_toolset(flavour, computer_probe(_other(flavour)))


@pytest.mark.clause("TS-FLAV-002")
def test_opaque_method_of_the_wrong_flavour_is_caught_when_called(flavour: Flavour) -> None:
    """An unannotated wrapper hides its flavour; calling it must not turn a mismatch into a success."""
    driver: Any = browser_probe(flavour, ["get_page_text"])

    async def coroutine_text() -> str:
        return "late text"

    if flavour == "sync":
        driver.get_page_text = lambda args: coroutine_text()
    else:
        driver.get_page_text = lambda args: "plain text"
    toolset = browser_toolset(flavour, driver, members=["get_page_text"])
    try:
        report = payload(execute(toolset, function_call("get_page_text", VALID_ARGUMENTS["get_page_text"])))
    except Exception:
        return
    expect(
        report.get("ok") is False and report.get("result") not in ("late text", "plain text"),
        "TS-FLAV-002",
        f"a {_other(flavour)} result from an opaque method was accepted: {report}",
    )
