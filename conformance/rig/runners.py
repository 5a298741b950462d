"""Build and run the SDK's Responses runners in either flavour, against a client answered by a cassette.

The sync and async runner, toolsets and ledgers take the same arguments but differ in what callbacks they
accept (the async ones await theirs). Everything here takes the run's :data:`Flavour` and gives back the
matching object, so a scenario, a replay or an example rehearsal is written once for both.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Coroutine, Iterable, Mapping
from typing import Any, Literal, Self, cast, overload

import openai
from openai.lib.browser import AsyncBrowserToolset, BrowserToolset
from openai.lib.computer import AsyncComputerToolset, ComputerToolset
from openai.lib.responses_tool_runner import (
    AsyncRegisteredFunction,
    AsyncResponsesToolLedger,
    AsyncResponsesToolRunner,
    RegisteredFunction,
    ResponsesToolLedger,
    ResponsesToolRunner,
)

from conformance.assertions import expect
from conformance.fake_responses import CassetteTransport, fake_async_client, fake_client
from conformance.flavours import Flavour, python_only
from conformance.node.sdk.ledger import NodeLedger


class EndedRun:
    """How a run ended: ``error`` is None when it finished. The scenario and Decisions records share it."""

    error: BaseException | None

    def finished(self, clause_id: str) -> Self:
        """This run, after failing ``clause_id`` unless it finished: what a failed run did proves nothing about it."""
        expect(self.error is None, clause_id, f"run failed: {self.error!r}")
        return self


# The runner of either flavour; its ``run`` returns the final response (async: awaitable).
Runner = ResponsesToolRunner | AsyncResponsesToolRunner
Client = openai.OpenAI | openai.AsyncOpenAI
BrowserToolsetOf = BrowserToolset | AsyncBrowserToolset
ComputerToolsetOf = ComputerToolset | AsyncComputerToolset
LoopRunner = Callable[[Coroutine[Any, Any, Any]], Any]


def in_flavour(flavour: Flavour, callback: Callable[..., Any]) -> Callable[..., Any]:
    """``callback`` as the runner of ``flavour`` calls it: unchanged for sync, a coroutine function for async
    (the async runner and toolsets await every callback they are given), and unchanged for ``node``: a Python
    callable reaches the Node SDK as an async function whose promise the SDK awaits, and the Node scenario maps
    the option's name and arguments (:mod:`conformance.contracts.runner._node_scenario`)."""
    if flavour in ("sync", "node") or inspect.iscoroutinefunction(callback):
        return callback

    async def awaited(*args: Any, **kwargs: Any) -> Any:
        return callback(*args, **kwargs)

    return awaited


@overload
def cassette_client(
    transport: CassetteTransport,
    flavour: Literal["sync"],
    *,
    max_retries: int = 0,
    options: Mapping[str, Any] | None = None,
) -> openai.OpenAI: ...


@overload
def cassette_client(
    transport: CassetteTransport,
    flavour: Literal["async"],
    *,
    max_retries: int = 0,
    options: Mapping[str, Any] | None = None,
) -> openai.AsyncOpenAI: ...


@overload
def cassette_client(
    transport: CassetteTransport,
    flavour: Flavour,
    *,
    max_retries: int = 0,
    options: Mapping[str, Any] | None = None,
) -> Any: ...


def cassette_client(
    transport: CassetteTransport,
    flavour: Flavour,
    *,
    max_retries: int = 0,
    options: Mapping[str, Any] | None = None,
) -> Any:
    """A real SDK client of ``flavour`` whose requests ``transport`` answers (no network); ``options`` are applied
    with ``client.with_options``, the documented way to give every request of a run options such as headers.

    For ``node``, the npm ``openai`` client whose ``fetch`` ``transport`` answers (a handle a Node toolset's or
    runner's ``run`` takes), its options under their Node names."""
    if flavour == "node":
        from conformance.contracts.runner._node_scenario import cassette_fetch
        from conformance.node.sdk.broker import shared_sdk
        from conformance.node.sdk.decisions import node_client_options

        return shared_sdk().client(cassette_fetch(transport), **node_client_options(options, max_retries))
    client: Client
    if flavour == "sync":
        client = fake_client(transport, max_retries=max_retries)
    else:
        client = fake_async_client(transport, max_retries=max_retries)
    return client.with_options(**options) if options else client


def browser_toolset(flavour: Flavour, driver: Any, **options: Any) -> BrowserToolsetOf:
    """The SDK browser toolset of ``flavour`` over ``driver``; ``options`` go to its constructor as given (for
    ``node``, the Node SDK's toolset behind the Python one's interface: :mod:`conformance.node.sdk.toolsets`)."""
    if flavour == "node":
        from conformance.node.sdk.toolsets import NodeBrowserToolset

        node: Any = NodeBrowserToolset(driver, **options)
        return cast(BrowserToolsetOf, node)
    kind = BrowserToolset if flavour == "sync" else AsyncBrowserToolset
    toolset: BrowserToolsetOf = kind(driver, **options)
    return toolset


def computer_toolset(flavour: Flavour, driver: Any, **options: Any) -> ComputerToolsetOf:
    """The SDK computer toolset of ``flavour`` over ``driver`` (for ``node``, the Node SDK's toolset behind the
    Python one's interface: :mod:`conformance.node.sdk.computer_toolset`)."""
    if flavour == "node":
        from conformance.node.sdk.computer_toolset import NodeComputerToolset

        node: Any = NodeComputerToolset(driver, **options)
        return cast(ComputerToolsetOf, node)
    kind = ComputerToolset if flavour == "sync" else AsyncComputerToolset
    toolset: ComputerToolsetOf = kind(driver, **options)
    return toolset


def build_runner(
    flavour: Flavour,
    *,
    browser: BrowserToolsetOf | None = None,
    computer: ComputerToolsetOf | None = None,
    functions: Iterable[RegisteredFunction | AsyncRegisteredFunction] = (),
    early_execution: Any = None,
) -> Runner:
    """The runner of ``flavour``; the toolsets and functions must already be of that flavour."""
    python_only(flavour, "the Python SDK's ResponsesToolRunner")
    options: dict[str, Any] = {
        "browser": browser,
        "computer": computer,
        "functions": list(functions),
        "early_execution": early_execution,
    }
    if flavour == "sync":
        return ResponsesToolRunner(**options)
    return AsyncResponsesToolRunner(**options)


def checkpoint_ledger(
    flavour: Flavour, run_id: str, save: Callable[[Any], None], resume_from: Any = None
) -> ResponsesToolLedger | AsyncResponsesToolLedger | NodeLedger:
    """A checkpoint ledger of ``flavour`` that hands every checkpoint to ``save`` (for ``node``, the Node SDK's
    ledger option as a :class:`~conformance.node.sdk.ledger.NodeLedger`, which a Node scenario run passes on)."""
    if flavour == "node":
        return NodeLedger(run_id, save, resume_from)
    if flavour == "sync":
        return ResponsesToolLedger(run_id=run_id, save=save, resume_from=resume_from)
    return AsyncResponsesToolLedger(run_id=run_id, save=in_flavour("async", save), resume_from=resume_from)


def run_to_end(
    flavour: Flavour,
    runner: Any,
    client: Client,
    params: Mapping[str, Any],
    options: Mapping[str, Any],
    *,
    loop: LoopRunner = asyncio.run,
) -> Any:
    """``runner.run(client, params, **options)`` to its end, for a Responses or a Decisions runner of
    ``flavour``; an async runner's coroutine is handed to ``loop`` (a driver made on another event loop must be
    called on that loop). Whatever the run raises propagates."""
    python_only(flavour, "the Python SDK's runner.run")
    if flavour == "sync":
        return runner.run(client, dict(params), **options)

    async def go() -> Any:
        return await runner.run(client, dict(params), **options)

    return loop(go())
