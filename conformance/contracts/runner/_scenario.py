"""Run one scenario through the real SDK runner in one mode and capture everything observable.

A scenario is written once (a cassette plus a :class:`Setup`) and executed in every mode it applies to: sync or
async runner, plain or streamed, eager or not, with or without a ledger. The documents promise the same semantics
in each mode, so checks compare the :class:`CapturedRun` against the documents, and the request-snapshot
check compares modes against each other.

Everything the runner does lands on one :class:`Timeline`: HTTP requests (from the fake transport), stream events
(from ``on_event``), function executions and probe-driver calls, so order assertions need no timing.

Modes, clients, toolsets and runner construction come from the kit's runner rig (:mod:`conformance.rig`), which
``driverkit replay`` and the examples' rehearsals share; this module adds what only checks need: scripted
functions and approvals, and the timeline.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Final, Self, TypeVar

import httpx2
import pydantic
import pytest
from openai import pydantic_responses_function_tool
from openai.lib.responses_tool_runner import (
    AsyncRegisteredFunction,
    RegisteredFunction,
    ToolRunnerCancelledError,
    ToolRunnerError,
)

from conformance import cassettes, rig
from conformance.assertions import expect
from conformance.fake_responses import CassetteTransport, SentRequest
from conformance.members import COMPUTER_METHODS
from conformance.probes import (
    Act,
    ProbeLog,
    browser_probe,
    computer_probe,
    default_browser_reply,
    default_computer_screenshot,
)
from conformance.rig import ALL_MODES, Mode
from conformance.rig.modes import active_modes
from conformance.rig.runners import ComputerToolsetOf, EndedRun

# How often a call held by ``Function.hold_until`` looks at the timeline again.
_POLL = 0.002

# Values the cassette sources (tools/cassettes/runner_sources.py) write into cassettes and checks look for.
MCP_TOOL: Final = {"type": "mcp", "server_label": "docs", "server_url": "https://mcp.example/sse"}
# The input of a conversation whose MCP approval request apr_0 was granted but not yet used by a call: the approval
# is open, so a run continuing it must ask approve_mcp again before its first request (cassette mcp-reapproval).
OPEN_MCP_APPROVAL: Final[list[dict[str, Any]]] = [
    {"role": "user", "content": "hi"},
    {"type": "mcp_approval_request", "id": "apr_0", "server_label": "docs", "name": "search", "arguments": "{}"},
    {"type": "mcp_approval_response", "approval_request_id": "apr_0", "approve": True},
]
# Canaries in the diagnostics-private-data cassette: none may appear in a diagnostic.
PRIVATE_ARGUMENT: Final = "argument-canary-7c41"
PRIVATE_CLICK_TARGET: Final = "target-canary-2e9b"
PRIVATE_API_ERROR: Final = "api-error-canary-6a5f: account acct_9921 suspended"


def answering_mcp(answer: bool, asked: list[str]) -> Callable[[Any], bool]:
    """An ``approve_mcp`` callback that gives ``answer`` to every approval request, noting each request's ID in
    ``asked`` so a check can tell which requests were put to the caller."""

    def approve(request: Any) -> bool:
        asked.append(request.id)
        return answer

    return approve


def dropping_every_eligible_call(snapshots: list[Any]) -> Callable[[Any], dict[str, Any]]:
    """A ``context_budget`` compaction policy that drops every call the snapshot offers, keeping each snapshot it
    is given in ``snapshots``."""

    def compact(snapshot: Any) -> dict[str, Any]:
        snapshots.append(snapshot)
        return {"drop_call_ids": list(snapshot["eligible_call_ids"])}

    return compact


def modes(*, stream: bool | None = None, eager: bool | None = None, ledger: bool | None = None) -> list[Any]:
    """The modes matching the given filters, as pytest params with readable IDs (the Node SDK's in --sdk=node)."""
    chosen = [
        mode
        for mode in active_modes()
        if (stream is None or mode.stream == stream)
        and (eager is None or mode.eager == eager)
        and (ledger is None or mode.ledger == ledger)
    ]
    return [pytest.param(mode, id=mode.id) for mode in chosen]


LOOKUP_SCHEMA = {
    "type": "object",
    "properties": {"reference": {"type": "string"}},
    "required": ["reference"],
    "additionalProperties": False,
}


class ReferenceArguments(pydantic.BaseModel):
    """The typed form of ``LOOKUP_SCHEMA``, for functions registered through ``from_tool``."""

    reference: str


def function_tool(name: str) -> dict[str, object]:
    return {
        "type": "function",
        "name": name,
        "description": f"{name} a reference",
        "parameters": LOOKUP_SCHEMA,
        "strict": True,
    }


class Timeline:
    """Ordered, thread-safe record of what happened during a run."""

    def __init__(self) -> None:
        self.entries: list[str] = []
        self._lock = threading.Lock()
        self.active = 0
        self.peak = 0

    def add(self, entry: str) -> None:
        with self._lock:
            self.entries.append(entry)

    def calls(self) -> list[str]:
        """Executed call IDs (functions and drivers), in order."""
        return [entry.split(":")[-1] for entry in self.entries if entry.startswith("call:")]

    def index(self, entry: str) -> int:
        return self.entries.index(entry)

    def ran_early(self, entry: str) -> bool:
        """Whether ``entry`` came before the ``response.completed`` stream event: a call that started then ran
        early, one that started after it waited for the whole response. Both must be on the timeline."""
        return self.index(entry) < self.index("event:response.completed")

    def has(self, entry: str) -> bool:
        with self._lock:
            return entry in self.entries

    def expect_waited(self, clause_id: str, early: str, *entries: str) -> None:
        """Fail ``clause_id`` unless every one of ``entries`` started only after the ``response.completed`` event
        (``early`` says what an earlier start means)."""
        expect(not any(self.ran_early(entry) for entry in entries), clause_id, f"{early}: {self.entries}")

    def expect_in_order(self, clause_id: str, first: str, then: str) -> None:
        """Fail ``clause_id`` unless ``first`` came before ``then``, as the response listed them."""
        expect(self.index(first) < self.index(then), clause_id, f"original order lost: {self.entries}")

    def expect_held_behind(self, clause_id: str, *, deferred: str, held: str) -> None:
        """Fail ``clause_id`` unless ``held``, allowed to run early but listed after the ``deferred`` call, waited
        for the completed response and still ran after ``deferred``."""
        self.expect_waited(clause_id, f"{held} (allowed, after the deferred {deferred}) ran early", held)
        self.expect_in_order(clause_id, deferred, held)

    def enter(self) -> None:
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)

    def leave(self) -> None:
        with self._lock:
            self.active -= 1


@dataclass(frozen=True)
class Function:
    """A registered function for the scenario: its reply (str, list, or an exception to raise) and options."""

    name: str
    reply: object = "ok"
    independent: bool = False
    allow_output_override: bool = False
    # Seconds to hold the call open, so overlapping independent calls become visible.
    hold: float = 0.0
    # With this set, ``hold`` is only the upper bound: the call returns as soon as this timeline entry appears
    # (e.g. ``"done:quick:c2"``), which makes an overlap or a finishing order deterministic instead of timed.
    hold_until: str | None = None
    # Register through ``from_tool`` with a Pydantic model of the same ``{"reference": str}`` arguments.
    typed: bool = False
    # Called with the decoded arguments before replying (e.g. to set a cancellation flag).
    side_effect: Callable[[dict[str, object]], None] | None = None


@dataclass(frozen=True)
class Approval:
    """A computer approval callback for the run (``approve_safety_checks`` or ``before_action``).

    ``reply`` is the answer, or a function of the received call/action giving it (an exception is raised).
    ``declares_cancelled`` adds the optional keyword-only ``cancelled`` parameter. ``side_effect`` runs with
    the received object first (e.g. to report a cancellation). Each invocation lands on the timeline as
    ``approve_safety_checks:<call_id>`` or ``before_action:<action type>`` and in the probe log (with the
    ``cancelled`` probe it received), so its order against the computer driver calls is visible.
    """

    reply: object = True
    declares_cancelled: bool = False
    side_effect: Callable[[Any], None] | None = None


@dataclass
class Setup:
    """Everything besides the cassette that a scenario needs: registrations, params and run options."""

    functions: tuple[Function, ...] = (Function("lookup"),)
    browser: tuple[str, ...] | None = None
    browser_replies: dict[str, object] = field(default_factory=dict)
    computer: bool = False
    early_execution: Any = None
    params: dict[str, Any] = field(default_factory=lambda: {"model": "gpt-test", "input": "hi"})
    run_options: dict[str, Any] = field(default_factory=dict)
    max_retries: int = 0
    # Applied with ``client.with_options(...)``, the documented way to give a run request options
    # (e.g. ``default_headers`` carrying a fixed Idempotency-Key).
    client_options: dict[str, Any] = field(default_factory=dict)
    # What the browser probe's ``state()`` returns; None keeps the probe's default tab.
    browser_state: object = None
    # What the computer probe's ``screenshot()`` returns after each action; None keeps the probe's inline PNG
    # (a scenario can hand back a file-ID or remote-URL screenshot instead).
    computer_screenshot: dict[str, object] | None = None
    # Recording computer approval callbacks, built in the mode's flavour (they take precedence over run_options).
    approve_safety_checks: Approval | None = None
    before_action: Approval | None = None

    def with_params(self, **params: Any) -> Setup:
        return replace(self, params={**self.params, **params})


def mcp_setup(*tools: dict[str, Any], require_approval: Any = None, **run_options: Any) -> Setup:
    """A scenario declaring the MCP ``tools`` (by default the cassettes' MCP_TOOL), the first one with
    ``require_approval`` when given, run with ``run_options`` (``approve_mcp`` among them)."""
    declared = [dict(tool) for tool in (tools or (MCP_TOOL,))]
    if require_approval is not None:
        declared[0]["require_approval"] = require_approval
    return Setup(run_options=run_options).with_params(tools=declared)


@dataclass
class CapturedRun(EndedRun):
    """Everything observable about one run of a scenario: how it ended, what was sent, what happened when."""

    response: Any
    error: BaseException | None
    timeline: Timeline
    requests: list[SentRequest]
    checkpoints: list[dict[str, Any]]
    probe_log: ProbeLog
    turns: list[Any] = field(default_factory=list)
    diagnostics: list[dict[str, Any]] = field(default_factory=list)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [request.body or {} for request in self.requests]

    def input_of(self, request: int) -> list[dict[str, Any]]:
        return list(self.bodies[request]["input"])

    @property
    def approvals_sent(self) -> list[tuple[Any, Any]]:
        """(approval_request_id, approve) of every MCP approval response sent, in order."""
        return [
            (item.get("approval_request_id"), item.get("approve"))
            for body in self.bodies
            for item in body.get("input", [])
            if isinstance(item, dict) and item.get("type") == "mcp_approval_response"
        ]

    def stopped_before_any_call(self, clause_id: str, accepted: str, *, requests: int | None = None) -> Self:
        """This run, after failing ``clause_id`` unless it ended with an error before any local call ran (and, given
        ``requests``, after exactly that many requests): ``accepted`` says what the run went on with."""
        expect(self.error is not None, clause_id, accepted)
        expect(self.timeline.calls() == [], clause_id, f"local calls ran: {self.timeline.entries}")
        if requests is not None:
            expect(
                len(self.requests) == requests, clause_id, f"{len(self.requests)} requests sent, expected {requests}"
            )
        return self

    def expect_first_approval_refused(self, clause_id: str) -> None:
        """Fail ``clause_id`` unless the first request carried MCP approval responses, the first of them a refusal."""
        responses = [item for item in self.input_of(0) if item.get("type") == "mcp_approval_response"]
        expect(responses and responses[0]["approve"] is False, clause_id, f"sent: {responses}")

    @property
    def receipts(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        error = self.error
        assert isinstance(error, (ToolRunnerError, ToolRunnerCancelledError)), f"no runner error: {error!r}"
        return tuple(error.attempted_call_ids), tuple(error.completed_call_ids)


def _reply_of(spec: Function) -> object:
    if isinstance(spec.reply, BaseException):
        raise spec.reply
    return spec.reply


def load(name: str) -> cassettes.Cassette:
    return cassettes.bundled(name)


class _ObservedTransport(CassetteTransport):
    """The cassette transport, also writing each request onto the timeline."""

    def __init__(self, cassette: cassettes.Cassette, timeline: Timeline) -> None:
        super().__init__(cassette, match="endpoint")
        self.timeline = timeline

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self.timeline.add(f"request:{self.served}")
        return super().handle_request(request)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.timeline.add(f"request:{self.served}")
        return await super().handle_async_request(request)


class ScenarioRun:
    """Builds the runner for a mode, runs it over a cassette and returns the :class:`CapturedRun`."""

    def __init__(self, cassette: cassettes.Cassette, setup: Setup, mode: Mode) -> None:
        self.cassette = cassette
        self.setup = setup
        self.mode = mode
        self.timeline = Timeline()
        self.transport = _ObservedTransport(cassette, self.timeline)
        self.checkpoints: list[dict[str, Any]] = []
        self.diagnostics: list[dict[str, Any]] = []
        self.probe_log = ProbeLog()
        self.cancel_flag = threading.Event()
        # The computer toolset of the last built runner, so a check can ask whether a stopped run released it.
        self.computer_toolset: ComputerToolsetOf | None = None

    # ------------------------------------------------------------------ registrations

    @contextmanager
    def _recorded_call(self, spec: Function, arguments: dict[str, object]) -> Iterator[None]:
        """Put one function call on the timeline: ``call:<name>:<ref>`` as it starts, then ``done:...`` when the
        executor returned or ``failed:...`` when it raised, so checks see when each call ended relative to
        stream events and other calls."""
        label = f"{spec.name}:{arguments.get('reference', '')}"
        self.timeline.enter()
        self.timeline.add(f"call:{label}")
        finished = "failed"
        try:
            if spec.side_effect is not None:
                spec.side_effect(arguments)
            yield
            finished = "done"
        finally:
            self.timeline.add(f"{finished}:{label}")
            self.timeline.leave()

    def _pauses(self, spec: Function) -> Iterator[float]:
        """The sleeps a held call makes: short polls until ``hold_until`` appears (``hold`` at most), or one
        ``hold``."""
        if spec.hold_until is not None:
            deadline = time.monotonic() + spec.hold
            while not self.timeline.has(spec.hold_until) and time.monotonic() < deadline:
                yield _POLL
        elif spec.hold:
            yield spec.hold

    def _sync_execute(self, spec: Function) -> Callable[[dict[str, object]], object]:
        def execute(arguments: dict[str, object]) -> object:
            with self._recorded_call(spec, arguments):
                for pause in self._pauses(spec):
                    time.sleep(pause)
                return _reply_of(spec)

        return execute

    def _async_execute(self, spec: Function) -> Callable[[dict[str, object]], Any]:
        async def execute(arguments: dict[str, object]) -> object:
            with self._recorded_call(spec, arguments):
                for pause in self._pauses(spec):
                    await asyncio.sleep(pause)
                return _reply_of(spec)

        return execute

    def _browser_replies(self) -> dict[str, object]:
        replies: dict[str, object] = {}
        for member in self.setup.browser or ():
            reply = self.setup.browser_replies.get(member)

            def act(argument: object, member: str = member, reply: object = reply) -> object:
                # The driver never sees the call ID, so scenarios put it in the click target.
                label = argument.get("target") if isinstance(argument, dict) else None
                self.timeline.add(f"call:browser_{member}:{label or ''}")
                if isinstance(reply, BaseException):
                    raise reply
                if reply is None:
                    return default_browser_reply(member)
                return reply

            replies[member] = Act(act)
        return replies

    def _computer_replies(self) -> dict[str, object]:
        def reply_for(method: str) -> Act:
            def act(argument: object) -> object:
                # Screenshots follow every action; only the actions themselves are effects on the timeline.
                if method == "screenshot":
                    chosen = self.setup.computer_screenshot
                    return default_computer_screenshot() if chosen is None else dict(chosen)
                self.timeline.add(f"call:computer_{method}:")
                return None

            return Act(act)

        return {method: reply_for(method) for method in COMPUTER_METHODS}

    def build_runner(self) -> Any:
        # Any, not the rig's Runner union: checks drive the runner of the mode's flavour by hand (run, iterate,
        # async iteration), and each branch knows which flavour it holds.
        flavour = self.mode.flavour
        if flavour == "node":
            from conformance.contracts.runner._node_scenario import NodeScenarioRunner

            return NodeScenarioRunner(self)
        browser = computer = None
        if self.setup.browser is not None:
            state = {} if self.setup.browser_state is None else {"state": self.setup.browser_state}
            probe = browser_probe(
                flavour, self.setup.browser, replies=self._browser_replies(), log=self.probe_log, **state
            )
            options = {
                name: rig.in_flavour(flavour, value) if callable(value) else value
                for name, value in self.browser_options().items()
            }
            browser = rig.browser_toolset(flavour, probe, **options)
        if self.setup.computer:
            computer_driver = computer_probe(flavour, log=self.probe_log, replies=self._computer_replies())
            computer = rig.computer_toolset(flavour, computer_driver)
            self.computer_toolset = computer
        registration = self._sync_registration if flavour == "sync" else self._async_registration
        return rig.build_runner(
            flavour,
            browser=browser,
            computer=computer,
            functions=[registration(spec) for spec in self.setup.functions],
            early_execution=self.setup.early_execution,
        )

    def browser_options(self) -> dict[str, Any]:
        """The browser toolset's options besides its driver, callbacks as plain ``def`` (each SDK's run adapts
        them: the mode's flavour, or the Node SDK's names): by default a ``confirm`` that approves everything."""
        return {"confirm": lambda context: True}

    def _sync_registration(self, spec: Function) -> RegisteredFunction:
        execute = self._sync_execute(spec)
        if spec.typed:
            return RegisteredFunction.from_tool(
                pydantic_responses_function_tool(ReferenceArguments, name=spec.name),
                execute=lambda parsed: execute(parsed.model_dump()),  # type: ignore[arg-type,return-value]
                allow_output_override=spec.allow_output_override,
                independent=spec.independent,
            )
        return RegisteredFunction(
            tool=function_tool(spec.name),  # type: ignore[arg-type]
            execute=execute,  # type: ignore[arg-type]
            allow_output_override=spec.allow_output_override,
            independent=spec.independent,
        )

    def _async_registration(self, spec: Function) -> AsyncRegisteredFunction:
        execute = self._async_execute(spec)
        if spec.typed:

            async def typed(parsed: ReferenceArguments) -> Any:
                return await execute(parsed.model_dump())

            return AsyncRegisteredFunction.from_tool(
                pydantic_responses_function_tool(ReferenceArguments, name=spec.name),
                execute=typed,
                allow_output_override=spec.allow_output_override,
                independent=spec.independent,
            )
        return AsyncRegisteredFunction(
            tool=function_tool(spec.name),  # type: ignore[arg-type]
            execute=execute,
            allow_output_override=spec.allow_output_override,
            independent=spec.independent,
        )

    # ------------------------------------------------------------------ run options

    def _approval(self, name: str, spec: Approval) -> Callable[..., Any]:
        """A recording ``def``/``async def`` callback (matching the mode) for ``Setup.<name>``."""

        def answer(received: object) -> object:
            label = getattr(received, "call_id", None) or getattr(received, "type", "")
            self.timeline.add(f"{name}:{label}")
            if spec.side_effect is not None:
                spec.side_effect(received)
            reply = spec.reply
            return reply(received) if callable(reply) else reply

        return self.probe_log.callback(
            name, Act(answer), flavour=self.mode.flavour, declares_cancelled=spec.declares_cancelled
        )

    def run_kwargs(self) -> dict[str, Any]:
        options = dict(self.setup.run_options)
        if self.mode.stream:

            def on_event(event: Any) -> None:
                self.timeline.add(f"event:{event.type}")

            user_on_event = options.pop("on_event", None)

            def combined(event: Any) -> None:
                on_event(event)
                if user_on_event is not None:
                    user_on_event(event)

            options["on_event"] = rig.in_flavour(self.mode.flavour, combined)
        else:
            options.pop("on_event", None)
        for name in ("before_early_call", "approve_mcp", "approve_safety_checks", "before_action"):
            if name in options:
                options[name] = rig.in_flavour(self.mode.flavour, options[name])
        for name, spec in (
            ("approve_safety_checks", self.setup.approve_safety_checks),
            ("before_action", self.setup.before_action),
        ):
            if spec is not None:
                options[name] = self._approval(name, spec)
        options["on_diagnostic"] = self.diagnostics.append
        if self.mode.ledger and "ledger" not in options:
            options["ledger"] = self.ledger()
        elif "ledger" in options and options["ledger"] is None:
            del options["ledger"]
        return {"stream": self.mode.stream, "eager": self.mode.eager, **options}

    def ledger(self, resume_from: Any = None, run_id: str = "run-1") -> Any:
        return rig.checkpoint_ledger(self.mode.flavour, run_id, self.checkpoints.append, resume_from)

    # ------------------------------------------------------------------ running

    def client(self) -> Any:
        """A client of the mode's flavour answered by the scenario's cassette."""
        return rig.cassette_client(
            self.transport, self.mode.flavour, max_retries=self.setup.max_retries, options=self.setup.client_options
        )

    def captured(self, response: Any, error: BaseException | None, turns: list[Any] | None = None) -> CapturedRun:
        return CapturedRun(
            response,
            error,
            self.timeline,
            list(self.transport.sent),
            self.checkpoints,
            self.probe_log,
            turns or [],
            self.diagnostics,
        )

    def run(self, params: dict[str, Any] | None = None, **overrides: Any) -> CapturedRun:
        """``runner.run`` in this mode; runner errors are captured, not raised."""
        if self.mode.flavour == "node":
            from conformance.contracts.runner._node_scenario import run_in_node

            return run_in_node(self, params, overrides)
        runner = self.build_runner()
        kwargs = {**self.run_kwargs(), **overrides}
        params = dict(self.setup.params if params is None else params)
        try:
            return self.captured(rig.run_to_end(self.mode.flavour, runner, self.client(), params, kwargs), None)
        except (ToolRunnerError, ValueError) as error:
            return self.captured(None, error)

    def iterate(self, on_turn: Callable[[Any], None], **overrides: Any) -> CapturedRun:
        """``runner.iterate`` in this mode, calling ``on_turn`` on every turn before advancing."""
        if self.mode.flavour == "node":
            from conformance.contracts.runner._node_scenario import iterate_in_node

            return iterate_in_node(self, on_turn, overrides)
        runner = self.build_runner()
        kwargs = {**self.run_kwargs(), **overrides}
        turns: list[Any] = []
        if self.mode.flavour == "sync":
            try:
                for turn in runner.iterate(self.client(), dict(self.setup.params), **kwargs):
                    turns.append(turn)
                    on_turn(turn)
            except (ToolRunnerError, ValueError) as error:
                return self.captured(None, error, turns)
            return self.captured(turns[-1].response if turns else None, None, turns)

        async def go() -> CapturedRun:
            try:
                async for turn in runner.iterate(self.client(), dict(self.setup.params), **kwargs):
                    turns.append(turn)
                    on_turn(turn)
            except (ToolRunnerError, ValueError) as error:
                return self.captured(None, error, turns)
            return self.captured(turns[-1].response if turns else None, None, turns)

        return asyncio.run(go())


def run(name: str, setup: Setup, mode: Mode, **overrides: Any) -> CapturedRun:
    """Load cassette ``name`` and run it once in ``mode``."""
    return ScenarioRun(load(name), setup, mode).run(**overrides)


def expect_mcp_policy_followed(clause_id: str, require_approval: Any, exempt: bool, mode: Mode) -> None:
    """Fail ``clause_id`` unless the MCP call of mcp-unapproved-call, which no approval covers, is let through to
    the local call c1 when ``require_approval`` exempts it and stops the run before any local call when not."""
    outcome = run("mcp-unapproved-call", mcp_setup(require_approval=require_approval), mode)
    if exempt:
        expect(outcome.error is None, clause_id, f"{require_approval!r} exempts the call: {outcome.error!r}")
        expect(outcome.timeline.calls() == ["c1"], clause_id, "the local call should run")
    else:
        outcome.stopped_before_any_call(clause_id, f"{require_approval!r} leaves the call needing approval")


Raised = TypeVar("Raised", bound=BaseException)


def raised_by_cancelled_task(
    start: Callable[[], Awaitable[object]], started: asyncio.Event, raised: type[Raised]
) -> list[Raised]:
    """Await ``start()`` in an asyncio task and cancel the task once ``started`` is set; what of ``raised`` the
    awaited run let out (the task itself must still end cancelled)."""
    caught: list[Raised] = []

    async def body() -> None:
        try:
            await start()
        except raised as error:
            caught.append(error)
            raise

    async def cancel_once_started() -> None:
        task = asyncio.create_task(body())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_once_started())
    return caught


def input_summary(items: list[dict[str, Any]]) -> list[str]:
    """A compact, readable line per input item (used by request snapshots and order assertions)."""
    lines = []
    for item in items:
        kind = item.get("type", "message")
        if kind == "message" or ("role" in item and kind == "message"):
            content = item.get("content")
            text = (
                content
                if isinstance(content, str)
                else (content[0].get("text", "") if isinstance(content, list) and content else "")
            )
            lines.append(f"{item.get('role')}:{str(text)[:60]}")
        elif kind in ("function_call", "computer_call"):
            lines.append(f"{kind}:{item.get('call_id')}:{item.get('name', '')}")
        elif kind in ("function_call_output", "computer_call_output"):
            output = item.get("output")
            shown = output if isinstance(output, str) else "<content>"
            lines.append(f"{kind}:{item.get('call_id')}:{str(shown)[:60]}")
        elif kind == "mcp_approval_response":
            lines.append(f"{kind}:{item.get('approval_request_id')}:{item.get('approve')}")
        else:
            lines.append(f"{kind}:{item.get('id', '')}")
    return lines


__all__ = [
    "ALL_MODES",
    "LOOKUP_SCHEMA",
    "MCP_TOOL",
    "PRIVATE_API_ERROR",
    "PRIVATE_ARGUMENT",
    "PRIVATE_CLICK_TARGET",
    "Approval",
    "CapturedRun",
    "Function",
    "Mode",
    "ReferenceArguments",
    "ScenarioRun",
    "Setup",
    "Timeline",
    "answering_mcp",
    "dropping_every_eligible_call",
    "function_tool",
    "input_summary",
    "load",
    "modes",
    "run",
]
