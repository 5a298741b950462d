"""The rig's runner pieces, each in both flavours, against bundled cassettes (no network)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import openai
import pytest
from openai.lib.browser import AsyncBrowserToolset, BrowserToolset
from openai.lib.responses_tool_runner import (
    AsyncResponsesToolLedger,
    AsyncResponsesToolRunner,
    ResponsesToolLedger,
    ResponsesToolRunner,
)

from conformance import cassettes
from conformance.fake_responses import CassetteTransport
from conformance.flavours import FLAVOURS, Flavour
from conformance.probes import browser_probe
from conformance.rig import (
    browser_toolset,
    build_runner,
    cassette_client,
    checkpoint_ledger,
    in_flavour,
    run_to_end,
)


def _transport(name: str = "final-message") -> CassetteTransport:
    return CassetteTransport(cassettes.bundled(name), match="endpoint")


def test_a_sync_callback_stays_as_it_is_for_the_sync_flavour() -> None:
    def answer(value: int) -> int:
        return value + 1

    assert in_flavour("sync", answer) is answer


def test_an_async_flavour_gets_a_coroutine_function_with_the_same_answer() -> None:
    adapted = in_flavour("async", lambda value, *, step: value + step)
    assert asyncio.iscoroutinefunction(adapted)
    assert asyncio.run(adapted(1, step=2)) == 3


def test_a_coroutine_function_is_not_wrapped_twice() -> None:
    async def answer() -> bool:
        return True

    assert in_flavour("async", answer) is answer


def test_the_client_matches_the_flavour_and_carries_request_options() -> None:
    transport = _transport()
    sync_client = cassette_client(transport, "sync", options={"default_headers": {"X-Probe": "1"}})
    assert isinstance(sync_client, openai.OpenAI)
    assert isinstance(cassette_client(transport, "async"), openai.AsyncOpenAI)
    sync_client.responses.create(model="gpt-test", input="hi")
    assert transport.sent[0].headers.get("x-probe") == "1"


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_toolsets_runners_and_ledgers_are_of_the_flavour(flavour: Flavour) -> None:
    asynchronous = flavour == "async"
    toolset = browser_toolset(flavour, browser_probe(flavour, ["get_page_text"]))
    assert isinstance(toolset, AsyncBrowserToolset if asynchronous else BrowserToolset)
    runner = build_runner(flavour, browser=toolset)
    assert isinstance(runner, AsyncResponsesToolRunner if asynchronous else ResponsesToolRunner)
    ledger = checkpoint_ledger(flavour, "run-1", lambda checkpoint: None)
    assert isinstance(ledger, AsyncResponsesToolLedger if asynchronous else ResponsesToolLedger)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_run_to_end_returns_the_final_response_and_saves_checkpoints(flavour: Flavour) -> None:
    transport = _transport()
    saved: list[object] = []
    options = {"ledger": checkpoint_ledger(flavour, "run-1", saved.append)}
    response = run_to_end(flavour, build_runner(flavour), cassette_client(transport, flavour), {"input": "hi"}, options)
    assert response.output_text == "Hello."
    assert transport.exhausted and transport.divergence is None
    assert saved, "the ledger saved no checkpoint"


def test_an_async_run_goes_to_the_given_event_loop_runner() -> None:
    handed: list[str] = []

    def loop(coroutine: Coroutine[Any, Any, Any]) -> Any:
        handed.append(type(coroutine).__name__)
        return asyncio.run(coroutine)

    client = cassette_client(_transport(), "async")
    response = run_to_end("async", build_runner("async"), client, {"model": "gpt-test", "input": "hi"}, {}, loop=loop)
    assert handed == ["coroutine"] and response.output_text == "Hello."


def test_a_callback_for_the_node_sdk_stays_as_it_is() -> None:
    # The Node side awaits whatever a Python callable answers; wrapping it in a coroutine would hand Node a
    # coroutine object instead of the answer.
    def answer(value: int) -> int:
        return value + 1

    assert in_flavour("node", answer) is answer
