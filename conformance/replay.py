"""Replay a recorded Responses cassette through the SDK runner, offline, to reproduce a runner bug.

    driverkit replay bug.jsonl                         # probe drivers, the recorded delivery mode
    driverkit replay bug.jsonl --driver mypkg:make_driver --mode async-eager

The runner is rebuilt from the first recorded request: its browser tools become a browser toolset (a recording
probe driver, or the driver your ``--driver`` factory makes: the same factory certification takes, called with an
``Environment`` on the kit's fixture server), its other function tools become functions that answer with
the outputs recorded for them, a computer declaration becomes a probe computer, and server tools and the
remaining parameters are passed through. The fake transport then serves the recorded responses and compares
every request the runner sends with the recorded one. The report says whether the run matched; otherwise it
names the first divergent request and shows a unified diff of sent versus recorded, plus the call receipts.

Replay approves browser confirmations and URL policies, and answers MCP approvals as recorded: it reproduces a
recorded run, it does not decide anything. Outputs produced by drivers are not compared unless ``--strict`` is
given, because a probe driver cannot reproduce a real page.
"""

from __future__ import annotations

import difflib
import json
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any, Final, cast

from openai.lib.responses_tool_runner import (
    AsyncRegisteredFunction,
    RegisteredFunction,
    ToolRunnerCancelledError,
    ToolRunnerError,
)

from conformance import cassettes, rig
from conformance._safe_text import for_terminal
from conformance.cassette_builder import REPLAY_REQUEST
from conformance.cassettes import Cassette, JSONObject
from conformance.fake_responses import CassetteTransport, Divergence, SentRequest, comparable_body
from conformance.flavours import Flavour
from conformance.harness.browser import BrowserHarness
from conformance.harness.errors import DriverSetupError
from conformance.harness.factory import SpecError, load_callable
from conformance.harness.subject import BrowserSubject
from conformance.members import ALL_NAMES
from conformance.probes import ProbeCall, ProbeLog, browser_probe, computer_probe
from conformance.rig import ALL_MODES, Mode
from conformance.rig.runners import Runner

# The modes a replay can be asked for; whether it keeps a ledger comes from the recording (meta.run), not --mode.
MODES: Final[dict[str, Mode]] = {mode.id: mode for mode in ALL_MODES if not mode.ledger}
# Request fields the runner fills in itself; everything else in the first request came from the caller's params.
RUNNER_OWNED: Final = frozenset({"tools", "include", "stream", "input"})
ENCRYPTED_REASONING: Final = "reasoning.encrypted_content"
COMPUTER_TYPES: Final = frozenset({"computer", "computer_use_preview"})
# A line of the printed report: a diff line is one line of a request's JSON, long only when a recorded value is.
REPORT_LINE_LIMIT: Final = 10_000
NO_RECORDED_OUTPUT: Final = "driverkit replay: no output was recorded for this call"
NOT_REPLAYABLE: Final = (
    "this cassette was authored for a kit check, which supplies the run's tools and parameters itself; it stores"
    " no request to rebuild the run from, so it cannot be replayed on its own (record a run with"
    " conformance.recording.record_client, or author one with CassetteBuilder.replayable, to get a replayable one)"
)


class ReplayError(ValueError):
    """The cassette or the options cannot be replayed (not a divergence: nothing was run)."""


@dataclass(frozen=True)
class ReplayTrace:
    """When things happened in a replay, for its timeline (``driverkit replay --html``).

    Times are seconds since the run started: each request the runner sent (in order, beside the request) and
    each local call a probe driver or a recorded function answered (its name and first argument).
    """

    cassette: Cassette
    requests: tuple[tuple[float, SentRequest], ...]
    local_calls: tuple[tuple[float, str, object], ...]


class _TimedTransport(CassetteTransport):
    """The cassette transport, noting when each request arrived."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.started = time.monotonic()
        self.sent_at: list[float] = []

    def _timed(self, at: float) -> None:
        # One time per request logged as sent, so the two lists stay aligned even if a request is refused early.
        self.sent_at += [at] * (len(self.sent) - len(self.sent_at))

    def handle_request(self, request: Any) -> Any:
        at = time.monotonic() - self.started
        try:
            return super().handle_request(request)
        finally:
            self._timed(at)

    async def handle_async_request(self, request: Any) -> Any:
        at = time.monotonic() - self.started
        try:
            return await super().handle_async_request(request)
        finally:
            self._timed(at)


class _TimedLog(ProbeLog):
    """The probe log, noting when each call was made."""

    def __init__(self, started: float) -> None:
        super().__init__()
        self.started = started
        self.at: list[float] = []

    def record(self, name: str, args: tuple[object, ...], cancelled: object) -> ProbeCall:
        self.at.append(time.monotonic() - self.started)
        return super().record(name, args, cancelled)


@dataclass(frozen=True)
class ReplayReport:
    cassette: str
    mode: str
    exchanges: int
    requests_sent: int
    divergence: Divergence | None
    diff: str
    calls: tuple[str, ...]
    attempted_call_ids: tuple[str, ...] = ()
    completed_call_ids: tuple[str, ...] = ()
    error: str | None = None
    final_text: str | None = None
    unused_exchanges: int = field(default=0)
    settings: str = ""
    checkpoints: int = 0
    policy_calls: int = 0
    requests_compared: bool = True
    own_driver: bool = False
    trace: ReplayTrace | None = field(default=None, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        """The runner sent exactly the recorded requests, in order, and used every recorded exchange."""
        return self.divergence is None and self.unused_exchanges == 0

    def render(self) -> str:
        lines = [f"replay {self.cassette} ({self.mode}): {'MATCH' if self.ok else 'DIVERGED'}"]
        lines.append(f"requests sent: {self.requests_sent} of {self.exchanges} recorded")
        if not self.requests_compared:
            lines.append("request bodies not compared: the cassette was authored and stores its run, not requests")
        if self.settings:
            lines.append(f"recorded run settings: {self.settings}")
            if "context_budget" in self.settings:
                lines.append(f"budget policy asked: {self.policy_calls} time(s)")
            if "ledger" in self.settings:
                lines.append(f"ledger checkpoints saved: {self.checkpoints}")
        if self.divergence is not None:
            lines.append(f"first divergence: request {self.divergence.index}: {self.divergence.reason}")
            if self.diff:
                lines += self.diff.rstrip("\n").split("\n")  # as unified_diff made its lines
        elif self.unused_exchanges:
            lines.append(f"the run ended with {self.unused_exchanges} recorded exchange(s) never requested")
        lines.append(f"local calls executed: {', '.join(self.calls) or '(none)'}")
        if self.own_driver:
            lines.append("browser calls went to the --driver driver and are not listed above")
        if self.error is not None:
            lines.append(f"runner stopped: {self.error}")
            lines.append(f"attempted_call_ids: {list(self.attempted_call_ids)}")
            lines.append(f"completed_call_ids: {list(self.completed_call_ids)}")
        elif self.final_text is not None:
            lines.append(f"final output text: {self.final_text!r}")
        # A recording holds a driver's text (tool outputs, errors): the terminal is shown its escapes, not given them.
        return "".join(f"{for_terminal(line, REPORT_LINE_LIMIT)}\n" for line in lines)


def unified_diff(recorded: JSONObject | None, sent: JSONObject | None, index: int) -> str:
    def lines(value: JSONObject | None) -> list[str]:
        if value is None:
            return ["(nothing)\n"]
        # Split on newlines only: str.splitlines would also split a JSON string at a C1 or separator character.
        text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
        return [line + "\n" for line in text.split("\n")]

    return "".join(
        difflib.unified_diff(lines(recorded), lines(sent), f"recorded request {index}", f"sent request {index}")
    )


# ------------------------------------------------------------------------------------------ rebuilding the run


@dataclass
class _RecordedOutputs:
    """The outputs the recorded run sent for each function call, looked up by name and arguments.

    Executors only receive decoded arguments, so a call is matched to its recording by (name, arguments) in the
    order the model issued such calls.
    """

    queues: dict[tuple[str, str], deque[str]] = field(default_factory=lambda: defaultdict(deque))
    outputs: dict[str, object] = field(default_factory=dict)
    approvals: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def from_cassette(cls, cassette: Cassette) -> _RecordedOutputs:
        recorded = cls()
        for exchange in cassette.exchanges:
            for item in cast(list[JSONObject], (exchange.request.body or {}).get("input") or []):
                if not isinstance(item, dict):
                    continue
                if item.get("type") == "function_call_output":
                    recorded.outputs.setdefault(str(item.get("call_id")), item.get("output"))
                elif item.get("type") == "mcp_approval_response":
                    recorded.approvals[str(item.get("approval_request_id"))] = bool(item.get("approve"))
            final = exchange.response.final_response() or {}
            for item in cast(list[JSONObject], final.get("output") or []):
                if isinstance(item, dict) and item.get("type") == "function_call":
                    key = (str(item.get("name")), _canonical(item.get("arguments")))
                    recorded.queues[key].append(str(item.get("call_id")))
        return recorded

    def answer(self, name: str, arguments: dict[str, object]) -> object:
        queue = self.queues.get((name, _canonical(json.dumps(arguments))))
        if not queue:
            return NO_RECORDED_OUTPUT
        return self.outputs.get(queue.popleft(), NO_RECORDED_OUTPUT)


def _canonical(arguments: object) -> str:
    try:
        return json.dumps(json.loads(str(arguments)), sort_keys=True)
    except json.JSONDecodeError:
        return str(arguments)


@dataclass(frozen=True)
class RunSettings:
    """Run options a recording noted in its header (``meta.run``; see conformance.recording.recorded_run_options)."""

    budget_limits: dict[str, int] | None = None
    budget_decisions: tuple[JSONObject, ...] = ()
    ledger: bool = False
    max_steps: int | None = None
    max_concurrent_calls: int | None = None
    # The client's retries of a failed request (the kit's replays otherwise never retry).
    max_retries: int | None = None

    def describe(self) -> str:
        parts = []
        if self.budget_limits is not None:
            limits = ", ".join(f"{key}={value}" for key, value in self.budget_limits.items())
            parts.append(f"context_budget ({limits}; {len(self.budget_decisions)} recorded decision(s))")
        if self.ledger:
            parts.append("ledger")
        if self.max_steps is not None:
            parts.append(f"max_steps={self.max_steps}")
        if self.max_concurrent_calls is not None:
            parts.append(f"max_concurrent_calls={self.max_concurrent_calls}")
        if self.max_retries is not None:
            parts.append(f"max_retries={self.max_retries}")
        return ", ".join(parts)


RUN_KEYS: Final = frozenset({"context_budget", "ledger", "max_steps", "max_concurrent_calls", "max_retries"})
BUDGET_KEYS: Final = frozenset({"max_input_bytes", "max_input_images", "keep_recent_screenshots", "decisions"})


def run_settings_from(meta: Mapping[str, object]) -> RunSettings:
    """The recorded run settings, checked so a hand-edited header fails here with the field named."""
    run = meta.get("run")
    if run is None:
        return RunSettings()
    if not isinstance(run, dict):
        raise ReplayError("header meta.run must be an object")
    unknown = sorted(set(run) - RUN_KEYS)
    if unknown:
        raise ReplayError(f"header meta.run has unknown settings: {', '.join(unknown)}")

    def whole(value: object, where: str) -> int:
        if type(value) is not int or value < 0:
            raise ReplayError(f"header {where} must be a non-negative integer, got {value!r}")
        return value

    limits: dict[str, int] | None = None
    decisions: tuple[JSONObject, ...] = ()
    budget = run.get("context_budget")
    if budget is not None:
        if not isinstance(budget, dict):
            raise ReplayError("header meta.run.context_budget must be an object")
        unknown = sorted(set(budget) - BUDGET_KEYS)
        if unknown:
            raise ReplayError(f"header meta.run.context_budget has unknown keys: {', '.join(unknown)}")
        limits = {
            key: whole(value, f"meta.run.context_budget.{key}") for key, value in budget.items() if key != "decisions"
        }
        raw_decisions = budget.get("decisions", [])
        if not isinstance(raw_decisions, list) or not all(isinstance(item, dict) for item in raw_decisions):
            raise ReplayError("header meta.run.context_budget.decisions must be a list of objects")
        decisions = tuple(cast(list[JSONObject], raw_decisions))
    ledger = run.get("ledger", False)
    if not isinstance(ledger, bool):
        raise ReplayError("header meta.run.ledger must be true or false")
    steps = run.get("max_steps")
    window = run.get("max_concurrent_calls")
    retries = run.get("max_retries")
    return RunSettings(
        budget_limits=limits,
        budget_decisions=decisions,
        ledger=ledger,
        max_steps=None if steps is None else whole(steps, "meta.run.max_steps"),
        max_concurrent_calls=None if window is None else whole(window, "meta.run.max_concurrent_calls"),
        max_retries=None if retries is None else whole(retries, "meta.run.max_retries"),
    )


@dataclass
class _Plan:
    params: dict[str, object]
    browser_members: list[str]
    functions: list[JSONObject]
    computer: bool
    recorded_stream: bool
    settings: RunSettings = field(default_factory=RunSettings)
    # False for an authored cassette that stores its run (meta.replay_request) but no request bodies.
    requests_compared: bool = True


def plan_from(cassette: Cassette) -> _Plan:
    """Work out the runner configuration from the first recorded request."""
    if not cassette.exchanges:
        raise ReplayError("the cassette has no exchanges to replay")
    first = cassette.exchanges[0].request
    if first.path.rstrip("/").rsplit("/", 1)[-1] != "responses":
        raise ReplayError(
            f"replay rebuilds Responses runs, and this cassette's first request went to {first.path}, so it cannot"
            " be replayed"
        )
    body = first.body
    if body is None:
        stored = cassette.meta.get(REPLAY_REQUEST)
        if not isinstance(stored, dict):
            # Authored cassettes keep only what was served; the tools come from the check that loads them.
            raise ReplayError(NOT_REPLAYABLE)
        body = stored
    params = {key: value for key, value in body.items() if key not in RUNNER_OWNED}
    params["input"] = body.get("input", [])
    include = [value for value in cast(list[object], body.get("include") or []) if value != ENCRYPTED_REASONING]
    if include:
        params["include"] = include
    browser_members: list[str] = []
    functions: list[JSONObject] = []
    server_tools: list[object] = []
    computer = False
    for tool in cast(list[JSONObject], body.get("tools") or []):
        name = str(tool.get("name", ""))
        if tool.get("type") == "function" and name.startswith("browser_") and name[8:] in ALL_NAMES:
            browser_members.append(name[8:])
        elif tool.get("type") == "function":
            functions.append(tool)
        elif tool.get("type") in COMPUTER_TYPES:
            computer = True
            if tool != {"type": "computer"}:
                server_tools.append(tool)
        else:
            server_tools.append(tool)
    if server_tools:
        params["tools"] = server_tools
    settings = run_settings_from(cassette.meta)
    compared = first.body is not None
    return _Plan(params, browser_members, functions, computer, body.get("stream") is True, settings, compared)


def load_factory(spec: str) -> Callable[..., Any]:
    """Resolve ``module:attribute`` to a driver factory, with the loader certification uses."""
    try:
        return load_callable(spec, "--driver")
    except SpecError as error:
        raise ReplayError(str(error)) from None


@contextmanager
def _factory_driver(factory: Callable[..., Any]) -> Iterator[BrowserSubject]:
    """The driver ``factory`` makes, called as certification calls it: with an :class:`Environment` (on the kit's
    fixture server), returning a driver, a context manager or a generator. Cleaned up when the block ends."""
    harness = BrowserHarness(getattr(factory, "__qualname__", repr(factory)), factory)
    try:
        with harness.subject() as subject:
            yield subject
    except DriverSetupError as error:
        raise ReplayError(str(error)) from None
    finally:
        harness.close()


class _Replay:
    def __init__(self, cassette: Cassette, plan: _Plan, flavour: Flavour, driver: object | None) -> None:
        self.cassette = cassette
        self.plan = plan
        self.flavour = flavour
        self.driver = driver
        self.recorded = _RecordedOutputs.from_cassette(cassette)
        self.log = _TimedLog(time.monotonic())
        self.checkpoints: list[object] = []
        self.policy_calls = 0

    def _budget_policy(self, snapshot: object) -> object:
        # The recorded decisions, in the order the recorded run's policy returned them. A replay that asks more
        # often than the recording did gets no decision, so the runner stops and the report shows where.
        self.policy_calls += 1
        decisions = self.plan.settings.budget_decisions
        if self.policy_calls > len(decisions):
            return None
        return json.loads(json.dumps(decisions[self.policy_calls - 1]))

    def settings_options(self) -> dict[str, Any]:
        """Run options rebuilt from the recording's ``meta.run``."""
        settings = self.plan.settings
        options: dict[str, Any] = {}
        if settings.budget_limits is not None:
            options["context_budget"] = {
                **settings.budget_limits,
                "compact": rig.in_flavour(self.flavour, self._budget_policy),
            }
        if settings.ledger:
            options["ledger"] = rig.checkpoint_ledger(self.flavour, "driverkit-replay", self.checkpoints.append)
        if settings.max_steps is not None:
            options["max_steps"] = settings.max_steps
        if settings.max_concurrent_calls is not None:
            options["max_concurrent_calls"] = settings.max_concurrent_calls
        return options

    def _function_answer(self, tool: JSONObject) -> Callable[[dict[str, object]], object]:
        name = str(tool["name"])

        def answer(arguments: dict[str, object]) -> object:
            # Functions share the probe drivers' log so the report shows one ordered list of local effects.
            self.log.record(f"function {name}", (arguments,), None)
            return self.recorded.answer(name, arguments)

        return answer

    def _approve(self, request: Any) -> bool:
        return self.recorded.approvals.get(str(getattr(request, "id", "")), False)

    def _browser_driver(self) -> Any:
        """The factory's driver, or a recording probe driver of the replay's flavour."""
        if self.driver is not None:
            # list_tabs is the SDK's own, made from state().
            missing = [
                member
                for member in self.plan.browser_members
                if member != "list_tabs" and not callable(getattr(self.driver, member, None))
            ]
            if missing:
                raise ReplayError(
                    f"the --driver driver does not implement {', '.join(missing)}, which the recorded run offered the "
                    "model; implement them, or replay without --driver (recording probe drivers answer as recorded)"
                )
            return self.driver
        return browser_probe(self.flavour, self.plan.browser_members, log=self.log)

    def _function(self, tool: JSONObject) -> RegisteredFunction | AsyncRegisteredFunction:
        answer = rig.in_flavour(self.flavour, self._function_answer(tool))
        if self.flavour == "sync":
            return RegisteredFunction(tool=tool, execute=answer)  # type: ignore[arg-type]
        return AsyncRegisteredFunction(tool=tool, execute=answer)  # type: ignore[arg-type]

    def build(self) -> tuple[Runner, dict[str, Any]]:
        """The runner the recording implies, and the run options that answer its callbacks as recorded."""
        browser = None
        if self.plan.browser_members:
            browser = rig.browser_toolset(
                self.flavour,
                self._browser_driver(),
                members=self.plan.browser_members,
                confirm=rig.in_flavour(self.flavour, lambda context: True),
                url_policy=rig.in_flavour(self.flavour, lambda context, url: True),
            )
        computer = None
        if self.plan.computer:
            computer = rig.computer_toolset(self.flavour, computer_probe(self.flavour, log=self.log))
        runner = rig.build_runner(
            self.flavour,
            browser=browser,
            computer=computer,
            functions=[self._function(tool) for tool in self.plan.functions],
        )
        return runner, {"approve_mcp": rig.in_flavour(self.flavour, self._approve)}


def replay(
    cassette: Cassette | str,
    *,
    mode: str | None = None,
    driver: str | Callable[..., Any] | None = None,
    max_steps: int | None = None,
    strict: bool = False,
) -> ReplayReport:
    """Replay ``cassette`` (a loaded cassette or a path) and report the first divergence, if any."""
    source = cassette if isinstance(cassette, str) else f"<{cassette.scenario}>"
    loaded = cassettes.load(cassette) if isinstance(cassette, str) else cassette
    try:
        plan = plan_from(loaded)
    except ReplayError as problem:  # these problems are the cassette's: say which one
        raise ReplayError(f"{source}: {problem}") from None
    delivery = "stream" if plan.recorded_stream else "plain"
    if mode is not None and mode not in MODES:
        raise ReplayError(f"unknown mode {mode!r} (choose from {', '.join(MODES)})")
    factory = load_factory(driver) if isinstance(driver, str) else driver
    with ExitStack() as stack:
        subject = None if factory is None else stack.enter_context(_factory_driver(factory))
        if subject is None:
            mode = mode or f"sync-{delivery}"
        elif mode is None:
            mode = f"{subject.flavour}-{delivery}"
        elif MODES[mode].flavour != subject.flavour:
            raise ReplayError(
                f"the driver factory made a {subject.flavour} driver, which cannot run a {mode} replay; "
                f"choose a {subject.flavour}-* mode"
            )
        chosen = MODES[mode]
        session = _Replay(loaded, plan, chosen.flavour, None if subject is None else subject.driver)
        runner, options = session.build()
        transport = _TimedTransport(loaded, match="body", mask_driver_outputs=not strict)
        session.log.started = transport.started
        run_options: dict[str, Any] = {**chosen.run_options(), **options, **session.settings_options()}
        if max_steps is not None:
            run_options["max_steps"] = max_steps
        response: Any = None
        error: BaseException | None = None
        client = rig.cassette_client(transport, chosen.flavour, max_retries=plan.settings.max_retries or 0)
        try:
            if subject is None:
                response = rig.run_to_end(chosen.flavour, runner, client, plan.params, run_options)
            else:
                # An async driver from a factory lives on the harness loop it was made on.
                response = rig.run_to_end(chosen.flavour, runner, client, plan.params, run_options, loop=subject.run)
        except (ToolRunnerError, ToolRunnerCancelledError, ValueError) as caught:
            error = caught
        return _report(source, mode, loaded, transport, session, response, error, strict)


def _report(
    source: str,
    mode: str,
    cassette: Cassette,
    transport: _TimedTransport,
    session: _Replay,
    response: Any,
    error: BaseException | None,
    strict: bool,
) -> ReplayReport:
    divergence = transport.divergence
    diff = ""
    if divergence is not None:
        diff = unified_diff(
            comparable_body(divergence.expected, mask_driver_outputs=not strict),
            comparable_body(divergence.actual, mask_driver_outputs=not strict),
            divergence.index,
        )
    driver_calls = [call.name for call in session.log.calls if call.name not in ("state", "driver.close")]
    attempted = tuple(getattr(error, "attempted_call_ids", ()) or ())
    completed = tuple(getattr(error, "completed_call_ids", ()) or ())
    return ReplayReport(
        cassette=source,
        mode=mode,
        exchanges=len(cassette.exchanges),
        requests_sent=transport.served,
        divergence=divergence,
        diff=diff,
        calls=tuple(driver_calls),
        attempted_call_ids=attempted,
        completed_call_ids=completed,
        error=None if error is None else f"{type(error).__name__}: {error}",
        final_text=None if response is None else str(response.output_text),
        unused_exchanges=max(0, len(cassette.exchanges) - transport.served) if divergence is None else 0,
        settings=session.plan.settings.describe(),
        checkpoints=len(session.checkpoints),
        policy_calls=session.policy_calls,
        requests_compared=session.plan.requests_compared,
        own_driver=session.driver is not None,
        trace=ReplayTrace(
            cassette,
            tuple(zip(transport.sent_at, transport.sent, strict=True)),
            tuple((at, call.name, call.argument) for at, call in zip(session.log.at, session.log.calls, strict=True)),
        ),
    )


__all__ = [
    "MODES",
    "ReplayError",
    "ReplayReport",
    "RunSettings",
    "plan_from",
    "replay",
    "run_settings_from",
    "unified_diff",
]
