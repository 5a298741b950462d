"""Both drivers through the SDK's BrowserToolset / AsyncBrowserToolset, via the reference toolsets.

Async drivers run on a fresh thread with its own event loop: the sync tests' Playwright keeps its loop
registered on the main thread, where asyncio cannot start another.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest
from openai.lib.browser import AsyncBrowserToolset, BrowserToolset
from openai.types.responses import ResponseFunctionToolCall

from reference.browser import AsyncPlaywrightBrowserDriver, launch_async
from reference.toolsets import (
    async_interactive_browser,
    async_read_only_browser,
    interactive_browser,
    read_only_browser,
)

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]

T = TypeVar("T")


def run_in_thread(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    results: list[T] = []
    errors: list[BaseException] = []

    def body() -> None:
        try:
            results.append(asyncio.run(make()))
        except BaseException as error:
            errors.append(error)

    thread = threading.Thread(target=body)
    thread.start()
    thread.join(timeout=120)
    if errors:
        raise errors[0]
    return results[0]


def tool_call(name: str, **arguments: Any) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call", call_id=f"call-{name}", name=f"browser_{name}", arguments=json.dumps(arguments)
    )


def payload(output: Any) -> dict[str, Any]:
    return json.loads(output["output"][0]["text"])


def test_read_only_toolset_exposes_reads_and_needs_no_confirm(open_driver, env) -> None:
    toolset = read_only_browser(open_driver("forms.html"))
    names = {tool["name"] for tool in toolset.tools}
    assert "browser_read_page" in names and "browser_list_tabs" in names
    assert not names & {"browser_click", "browser_type", "browser_navigate", "browser_key"}
    result = payload(toolset.execute(tool_call("read_page", filter="all", tab_id=None)))
    assert result["ok"] is True and result["result"]["elements"]
    with pytest.raises(ValueError):
        read_only_browser(open_driver("forms.html"), members=["click"])


def test_interactive_toolset_confirms_and_checks_origins(open_driver, env) -> None:
    asked: list[str] = []

    def confirm(context: Any) -> bool:
        asked.append(context["member"])
        return True

    driver = open_driver("forms.html")
    toolset = interactive_browser(driver, confirm=confirm, allowed_origins=[env.main_origin])
    refused = payload(toolset.execute(tool_call("navigate", url=env.url("blank.html", origin="other"), tab_id=None)))
    assert refused["ok"] is False and asked == []  # the URL policy refuses before asking
    report = payload(toolset.execute(tool_call("read_page", filter="all", tab_id=None)))["result"]
    save = next(item["ref"] for item in report["elements"] if item["label"] == "Save preferences")
    clicked = payload(toolset.execute(tool_call("click", target=save, tab_id=None)))
    assert clicked["ok"] is True and asked == ["click"]
    assert env.wait_for_effect("click")["target"] == "save"
    assert env.requests("other") == []


def test_bound_driver_toolset_offers_no_key(open_driver, env) -> None:
    toolset = interactive_browser(
        open_driver("forms.html", bind_targets=True), confirm=lambda _: True, allowed_origins=[env.main_origin]
    )
    assert "browser_key" not in {tool["name"] for tool in toolset.tools}
    assert isinstance(toolset, BrowserToolset)


def test_async_driver_through_async_toolsets(env) -> None:
    async def scenario() -> dict[str, Any]:
        async with launch_async() as process:
            driver = await AsyncPlaywrightBrowserDriver.create(
                process.browser, allowed_origins=[env.main_origin], start_url=env.url("forms.html")
            )
            async with driver:
                reader = async_read_only_browser(driver)
                assert isinstance(reader, AsyncBrowserToolset)
                read = payload(await reader.execute(tool_call("read_page", filter="all", tab_id=None)))

                async def confirm(context: Any) -> bool:
                    return True

                actor = async_interactive_browser(driver, confirm=confirm, allowed_origins=[env.main_origin])
                gift = next(item["ref"] for item in read["result"]["elements"] if item["label"] == "Leave at door")
                clicked = payload(await actor.execute(tool_call("click", target=gift, tab_id=None)))
                typed = payload(await actor.execute(tool_call("type", target=None, text="x", tab_id=None)))
                state = await driver.state()
                # Wait while the browser still runs: a beacon in flight is lost when the browser closes.
                change = await asyncio.to_thread(
                    env.wait_for_effect, "change", lambda effect: effect.get("target") == "leave"
                )
                return {"clicked": clicked, "typed": typed, "state": state, "change": change}

    outcome = run_in_thread(scenario)
    assert outcome["clicked"]["ok"] is True and outcome["typed"]["ok"] is True
    assert outcome["change"]["checked"] is True
    assert outcome["state"]["tabs"][0]["title"] == "Delivery preferences"


def test_async_driver_refuses_like_the_sync_one(env) -> None:
    async def scenario() -> list[str]:
        async with launch_async() as process:
            driver = await AsyncPlaywrightBrowserDriver.create(
                process.browser,
                allowed_origins=[env.main_origin],
                start_url=env.url("rerender.html"),
                bind_targets=True,
            )
            async with driver:
                errors: list[str] = []
                read = await driver.read_page({"filter": "all", "tab_id": None})
                old = next(item["ref"] for item in read["elements"] if item["label"] == "Confirm order")
                rebuild = next(item["ref"] for item in read["elements"] if item["label"] == "Rebuild controls")
                await driver.click({"target": rebuild, "tab_id": None})
                for attempt in (
                    driver.click({"target": old, "tab_id": None}),
                    driver.type({"target": None, "text": "x", "tab_id": None}),
                    driver.navigate({"url": env.url("blank.html", origin="other"), "tab_id": None}),
                ):
                    try:
                        await attempt
                    except Exception as error:
                        errors.append(type(error).__name__)
                assert getattr(driver, "key", None) is None
                return errors

    assert run_in_thread(scenario) == ["BrowserError"] * 3
    assert env.requests("other") == []
