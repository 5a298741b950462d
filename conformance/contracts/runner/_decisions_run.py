"""Run the real Decisions runner (sync or async) over a cassette and capture what a check needs.

The diagnostics and idempotency checks need more than ``test_decisions.run_decisions`` exposes: a trace that
interleaves diagnostics with executor calls (to prove the selected ID is reported before dispatch), executors
that raise, a caller-built observation and task, and a client carrying request options. One scenario is written
once and run in either flavour; async callbacks wrap the same sync logic so both flavours see identical inputs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openai.lib.decisions_tool_runner import (
    AsyncDecisionsToolRunner,
    DecisionsToolRunner,
    DecisionsToolRunnerError,
)

from conformance.contracts.runner._harness import load
from conformance.fake_responses import CassetteTransport, SentRequest, fake_async_client, fake_client
from conformance.flavours import Flavour

FLAVOURS: tuple[Flavour, ...] = ("sync", "async")
DEFAULT_TASK = "Review the document"


@dataclass(frozen=True)
class Action:
    """A candidate with an executor; ``failure`` is raised by the executor after it is recorded."""

    id: str
    failure: BaseException | None = None


@dataclass
class DecisionsRun:
    result: Any
    error: BaseException | None
    requests: list[SentRequest]
    # Ordered: "diagnostic:<stage>:<reason>:<call_id>" for every diagnostic, "execute:<id>" when an executor starts.
    trace: list[str] = field(default_factory=list)
    diagnostics: list[dict[str, Any]] = field(default_factory=list)

    @property
    def executed(self) -> list[str]:
        return [entry.split(":", 1)[1] for entry in self.trace if entry.startswith("execute:")]

    def header(self, name: str) -> list[str | None]:
        """The value of header ``name`` on every request sent, in order (None where absent)."""
        return [request.headers.get(name.lower()) for request in self.requests]


def run_decisions(
    cassette: str,
    flavour: Flavour,
    *,
    actions: tuple[Action, ...] = (Action("review"),),
    observation: Callable[[], Any] = lambda: "page",
    task: str = DEFAULT_TASK,
    verify: Callable[[Any], Any] | None = None,
    on_diagnostic: Callable[[dict[str, Any]], None] | None = None,
    client_options: dict[str, Any] | None = None,
    max_retries: int = 0,
) -> DecisionsRun:
    """Run ``cassette`` once; ``on_diagnostic`` (if given) is called after the diagnostic is recorded."""
    transport = CassetteTransport(load(cassette), match="endpoint")
    outcome = DecisionsRun(None, None, transport.sent)

    def record(diagnostic: dict[str, Any]) -> None:
        outcome.diagnostics.append(diagnostic)
        outcome.trace.append(f"diagnostic:{diagnostic['stage']}:{diagnostic['reason']}:{diagnostic['call_id']}")
        if on_diagnostic is not None:
            on_diagnostic(diagnostic)

    def executor(action: Action) -> Callable[[], None]:
        def execute() -> None:
            outcome.trace.append(f"execute:{action.id}")
            if action.failure is not None:
                raise action.failure

        return execute

    def candidates(execute: Callable[[Action], Callable[[], Any]]) -> list[Any]:
        listed: list[Any] = [
            {"id": action.id, "description": f"Do {action.id}", "execute": execute(action)} for action in actions
        ]
        return [*listed, {"id": "done", "description": "The task is complete", "done": True}]

    params = {"model": "gpt-test", "input": task}
    if flavour == "sync":
        client = fake_client(transport, max_retries=max_retries)
        if client_options:
            client = client.with_options(**client_options)
        runner = DecisionsToolRunner(observe=observation, candidates=lambda seen: candidates(executor), verify=verify)
        try:
            outcome.result = runner.run(client, params, on_diagnostic=record)  # type: ignore[arg-type]
        except (DecisionsToolRunnerError, ValueError) as error:
            outcome.error = error
        return outcome

    def async_executor(action: Action) -> Callable[[], Any]:
        sync_execute = executor(action)

        async def execute() -> None:
            sync_execute()

        return execute

    async def observe() -> Any:
        return observation()

    async def async_candidates(seen: Any) -> list[Any]:
        return candidates(async_executor)

    async_verify = None
    if verify is not None:
        sync_verify = verify

        async def async_verify(seen: Any) -> Any:
            return sync_verify(seen)

    async def go() -> None:
        client = fake_async_client(transport, max_retries=max_retries)
        if client_options:
            client = client.with_options(**client_options)
        runner = AsyncDecisionsToolRunner(observe=observe, candidates=async_candidates, verify=async_verify)
        try:
            outcome.result = await runner.run(client, params, on_diagnostic=record)  # type: ignore[arg-type]
        except (DecisionsToolRunnerError, ValueError) as error:
            outcome.error = error

    asyncio.run(go())
    return outcome
