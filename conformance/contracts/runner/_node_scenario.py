"""One scenario run through the Node SDK's ``ResponsesToolRunner`` (``--sdk=node``), captured like a Python run.

The runner, its toolsets and its client are the npm ``openai``'s, built through the Node host
(:mod:`conformance.node.sdk.broker`); what the runner calls back is the scenario's own Python: the registered functions
put the same entries on the same :class:`~conformance.contracts.runner._scenario.Timeline`, the probe drivers
record into the same log, and the client's ``fetch`` is answered by the scenario's cassette transport, which
records each request as it does for the Python SDK. So every check reads a Node run exactly as it reads a Python
one. Setup features the kit has not mapped to the Node SDK's options make the check "not checked", with the name.

``iterate`` advances the Node runner's async generator a turn at a time (:class:`NodeTurn`), and the ``cancelled``
option becomes the run's AbortSignal (:class:`~conformance.node.sdk.callbacks.NodeCancellation`).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

import httpx2

from conformance.assertions import not_checked
from conformance.members import COMPUTER_METHODS
from conformance.node.bridge import NodeError
from conformance.node.sdk.broker import RUN_SECONDS, Data, JsObject, Later, NodeSdk, shared_sdk
from conformance.node.sdk.callbacks import NodeCancellation, node_callback
from conformance.node.sdk.ledger import NodeLedger
from conformance.node.sdk.toolsets import OPTION_NAMES, as_node_callable
from conformance.probes import browser_probe, computer_probe

if TYPE_CHECKING:
    from conformance.contracts.runner._scenario import Approval, CapturedRun, Function, ScenarioRun
    from conformance.fake_responses import CassetteTransport

# Python run options with the same meaning under a Node name (ResponsesRunnerOptions).
_RENAMED_OPTIONS = {
    "max_steps": "maxSteps",
    "max_concurrent_calls": "maxConcurrentCalls",
    "approve_mcp": "approveMcp",
    "before_early_call": "beforeEarlyCall",
}
_BUDGET_FIELDS = {
    "max_input_bytes": "maxInputBytes",
    "max_input_images": "maxInputImages",
    "keep_recent_screenshots": "keepRecentScreenshots",
}
_CLIENT_OPTIONS = {"default_headers": "defaultHeaders"}


def _unadapted(what: str) -> None:
    not_checked(f"on the Node SDK: this scenario uses {what}, which the kit has not mapped to the Node SDK yet")


def with_added_events(body: str) -> str:
    """The SSE ``body`` with a ``response.output_item.added`` before each item's first ``output_item.done`` that had
    none. The real API always announces an item before completing it, and the Node SDK's stream accumulator
    depends on that ("missing output at index N"); the bundled cassettes, derived from completed responses, carry
    only the done events, which the Python SDK does not need. The announced item is the done item in progress."""
    blocks = body.split("\n\n")
    announced: set[object] = set()
    out: list[str] = []
    for block in blocks:
        data = next((line[len("data: ") :] for line in block.split("\n") if line.startswith("data: ")), None)
        event: Any = None
        if data is not None:
            try:
                event = json.loads(data)
            except ValueError:
                event = None  # a cut stream's half event stays as it is
        if isinstance(event, dict) and event.get("type") == "response.output_item.added":
            announced.add(event.get("output_index"))
        elif isinstance(event, dict) and event.get("type") == "response.output_item.done":
            index = event.get("output_index")
            if index not in announced:
                announced.add(index)
                item = {**(event.get("item") or {}), "status": "in_progress"}
                added = {**event, "type": "response.output_item.added", "item": item}
                out.append(f"event: response.output_item.added\ndata: {json.dumps(added)}")
        out.append(block)
    return "\n\n".join(out)


def _fetch(scenario: ScenarioRun) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """The client's ``fetch``: the scenario's cassette transport answers, and records the request."""
    return cassette_fetch(scenario.transport)


def cassette_fetch(transport: CassetteTransport) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """A Node client's ``fetch`` answered by ``transport``, which records each request (the Decisions rig's too)."""

    def fetch(request: Mapping[str, Any]) -> dict[str, Any]:
        body = request.get("body")
        sent = httpx2.Request(
            str(request["method"]),
            str(request["url"]),
            headers=dict(request.get("headers") or {}),
            content=body.encode() if isinstance(body, str) else b"",
        )
        response = transport.handle_request(sent)
        broken = False
        streamed = response.headers.get("content-type", "").startswith("text/event-stream")
        try:
            content = response.read()
        except httpx2.RemoteProtocolError:
            # A cut stream: its bytes go out, then the connection fails (sdk.mjs errors the body stream).
            content = getattr(response.stream, "_body", b"")
            broken = True
        return {
            "status": response.status_code,
            "headers": dict(response.headers),
            "body": with_added_events(content.decode()) if streamed else content.decode(),
            "broken": broken,
        }

    return fetch


def _function(scenario: ScenarioRun, spec: Function) -> dict[str, Any]:
    from conformance.contracts.runner._scenario import LOOKUP_SCHEMA, _reply_of, function_tool

    def execute(arguments: Mapping[str, Any], *_options: Any) -> Any:
        # The call's start goes on the timeline in Node's order; the hold and reply finish off the ordered thread.
        recorded = scenario._recorded_call(spec, dict(arguments))
        recorded.__enter__()

        def finish() -> object:
            try:
                for pause in scenario._pauses(spec):
                    time.sleep(pause)
                value = _reply_of(spec)
            except BaseException as error:
                recorded.__exit__(type(error), error, error.__traceback__)
                raise
            recorded.__exit__(None, None, None)
            return value

        return Later(finish)

    options = {"allowOutputOverride": spec.allow_output_override, "independent": spec.independent}
    if spec.typed:
        # The Node form of a typed registration: runnerFunction over a Standard Schema tool (sdk.mjs typedFunction);
        # the registration options go on the RunnerFunction it returns, as on a plain one.
        tool = function_tool(spec.name)
        typed = shared_sdk().invoke(
            "typedFunction",
            {"name": spec.name, "description": tool["description"], "schema": LOOKUP_SCHEMA, "execute": execute},
        )
        return {**typed, **options}
    return {"tool": function_tool(spec.name), "execute": execute, **options}


def _browser(sdk: NodeSdk, scenario: ScenarioRun) -> JsObject | None:
    setup = scenario.setup
    if setup.browser is None:
        return None
    state = {} if setup.browser_state is None else {"state": setup.browser_state}
    probe: Any = browser_probe(
        "sync", setup.browser, replies=scenario._browser_replies(), log=scenario.probe_log, **state
    )
    methods: dict[str, Callable[..., Any]] = {"state": lambda *_options: probe.state()}
    for member in setup.browser:
        if member != "list_tabs":
            methods[member] = lambda argument, *_options, member=member: getattr(probe, member)(argument)
    driver = sdk.proxy(methods)
    options: dict[str, Any] = {}
    for name, value in scenario.browser_options().items():
        if name not in OPTION_NAMES:
            _unadapted(f"the browser toolset option {name}")
        options[OPTION_NAMES[name]] = as_node_callable(sdk, value) if callable(value) else value
    toolset = sdk.construct("BrowserToolset", driver, options)
    assert isinstance(toolset, JsObject)
    return toolset


def _computer(sdk: NodeSdk, scenario: ScenarioRun) -> JsObject | None:
    if not scenario.setup.computer:
        return None
    probe = computer_probe("sync", log=scenario.probe_log, replies=scenario._computer_replies())
    toolset = _probe_computer_toolset(sdk, probe)
    # Checks ask the scenario's computer toolset whether a stopped run released it (close() gives its status).
    scenario.computer_toolset = cast(Any, _ComputerToolsetHandle(toolset))
    return toolset


def _probe_computer_toolset(sdk: NodeSdk, probe: Any) -> JsObject:
    """A Node ``ComputerToolset`` over ``probe`` (its methods given only the action: Node's ``{signal}`` dropped)."""
    methods: dict[str, Callable[..., Any]] = {"screenshot": lambda *_options: probe.screenshot()}
    for method in COMPUTER_METHODS:
        if method != "screenshot":
            methods[method] = lambda action, *_options, method=method: getattr(probe, method)(action)
    toolset = sdk.construct("ComputerToolset", sdk.proxy(methods))
    assert isinstance(toolset, JsObject)
    return toolset


class _ComputerToolsetHandle:
    """The scenario's handle on the Node ``ComputerToolset``: what checks call on the Python one (``close``)."""

    def __init__(self, toolset: JsObject) -> None:
        self.toolset = toolset

    def close(self) -> Any:
        return self.toolset.call("close")


def _computer_approval(scenario: ScenarioRun, name: str, spec: Approval) -> Any:
    """``Setup.<name>`` as the Node runner calls it: the scenario's own recording callback (the same timeline entry,
    probe-log record with the ``cancelled`` probe it got, and reply as in a Python run), given ``cancelled`` only
    when it declares it, and able to edit what it received in place as a JavaScript callback can."""
    # approveSafetyChecks(call, {signal}); beforeAction(action, call, {signal})
    context_at = 1 if name == "approve_safety_checks" else 2
    return node_callback(shared_sdk(), scenario._approval(name, spec), 1, context_at=context_at, edits=True)


def _diagnostics(scenario: ScenarioRun, observer: Callable[[Any], object] | None) -> Callable[[Any], object]:
    """The run's ``onDiagnostic``: the scenario records every event, then the check's own observer (if any) runs."""

    def observe(event: Any) -> object:
        scenario.diagnostics.append(event)
        return None if observer is None else observer(event)

    return observe


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _budget(budget: Mapping[str, Any]) -> dict[str, Any]:
    mapped: dict[str, Any] = {}
    for key, value in budget.items():
        if key in _BUDGET_FIELDS:
            mapped[_BUDGET_FIELDS[key]] = value
        elif key == "compact":
            compact = value

            def compact_in_node(snapshot: Mapping[str, Any], compact: Any = compact) -> dict[str, Any]:
                python_snapshot = Data(
                    history=snapshot.get("history"),
                    eligible_call_ids=snapshot.get("eligibleCallIds"),
                    input_bytes=snapshot.get("inputBytes"),
                    input_images=snapshot.get("inputImages"),
                )
                chosen = compact(python_snapshot)
                if inspect.isawaitable(chosen):
                    # An async def policy: Node receives its decision through the promise every Python callable
                    # answers with, which is what an async function policy is in Node.
                    chosen = asyncio.run(_awaited(chosen))
                chosen = chosen if isinstance(chosen, Mapping) else getattr(chosen, "__dict__", {})
                result: dict[str, Any] = {"dropCallIds": list(chosen.get("drop_call_ids", []))}
                if chosen.get("summary") is not None:
                    result["summary"] = chosen["summary"]
                return result

            mapped["compact"] = compact_in_node
        else:
            _unadapted(f"the context budget field {key}")
    return mapped


_NO_LEDGER_GIVEN: Final = object()


def _ledger(scenario: ScenarioRun, given: object) -> dict[str, Any] | None:
    """The run's ``ledger`` option: the one a check gave (``ledger=harness.ledger(resume_from=...)``, a
    :class:`NodeLedger` in a Node run), else the mode's own ledger saving into ``scenario.checkpoints``; None
    for no ledger (a mode without one, or a check that passed ``ledger=None`` to run without)."""
    if isinstance(given, NodeLedger):
        return given.option()
    if given is None:
        return None
    if given is not _NO_LEDGER_GIVEN:
        _unadapted(f"a ledger of type {type(given).__name__} (made for the Python SDK)")
    if not scenario.mode.ledger:
        return None
    made = scenario.ledger()
    assert isinstance(made, NodeLedger), "a Node mode's ledger is the Node SDK's option"
    return made.option()


def _options(scenario: ScenarioRun, overrides: Mapping[str, Any]) -> dict[str, Any]:
    setup, mode = scenario.setup, scenario.mode
    given = {**setup.run_options, **overrides}
    options: dict[str, Any] = {"stream": mode.stream, "eager": mode.eager}
    user_on_event = given.pop("on_event", None)
    if mode.stream:

        def on_event(event: Any) -> None:
            scenario.timeline.add(f"event:{event.get('type')}")
            if user_on_event is not None:
                user_on_event(event)

        options["onEvent"] = on_event
    options["onDiagnostic"] = _diagnostics(scenario, given.pop("on_diagnostic", None))
    computer_options: dict[str, Any] = {}
    for name, spec in (("approveSafetyChecks", setup.approve_safety_checks), ("beforeAction", setup.before_action)):
        if spec is not None:
            python_name = "approve_safety_checks" if name == "approveSafetyChecks" else "before_action"
            computer_options[name] = _computer_approval(scenario, python_name, spec)
    for python_name, node_name in (("approve_safety_checks", "approveSafetyChecks"), ("before_action", "beforeAction")):
        if python_name in given:
            callback = given.pop(python_name)
            computer_options.setdefault(node_name, lambda received, *_context, callback=callback: callback(received))
    if computer_options:
        options["computerOptions"] = computer_options
    ledger = _ledger(scenario, given.pop("ledger", _NO_LEDGER_GIVEN))
    if ledger is not None:
        options["ledger"] = ledger
    budget = given.pop("context_budget", None)
    if budget is not None:
        options["contextBudget"] = _budget(budget)
    # ``cancelled`` becomes the run's AbortSignal in _prepared, which keeps the NodeCancellation for the run.
    given.pop("cancelled", None)
    for name, value in given.items():
        if name not in _RENAMED_OPTIONS:
            _unadapted(f"the run option {name}")
        options[_RENAMED_OPTIONS[name]] = (
            (lambda *arguments, value=value: value(*arguments[:1])) if callable(value) else value
        )
    return options


def _prepared(
    scenario: ScenarioRun,
    params: dict[str, Any] | None,
    overrides: Mapping[str, Any],
    *,
    streams: JsObject | None = None,
) -> _Prepared:
    """The Node runner, client, params and options of one run of ``scenario`` (``run`` and ``iterate`` alike);
    ``streams`` (a ``streamLog``) makes the client log its event streams' life (``client`` in sdk.mjs)."""
    setup = scenario.setup
    sdk = shared_sdk()
    client_options: dict[str, Any] = {"maxRetries": setup.max_retries}
    for name, value in setup.client_options.items():
        if name not in _CLIENT_OPTIONS:
            _unadapted(f"the client option {name}")
        client_options[_CLIENT_OPTIONS[name]] = value
    tools: dict[str, Any] = {"functions": [_function(scenario, spec) for spec in setup.functions]}
    browser, computer = _browser(sdk, scenario), _computer(sdk, scenario)
    if browser is not None:
        tools["browser"] = browser
    if computer is not None:
        tools["computer"] = computer
    if setup.early_execution is not None:
        tools["earlyExecution"] = setup.early_execution
    options = _options(scenario, overrides)
    runner = sdk.construct("ResponsesToolRunner", tools)
    assert isinstance(runner, JsObject)
    client = sdk.client(_fetch(scenario), streams=streams, **client_options)
    arguments = dict(setup.params if params is None else params)
    extra_headers = arguments.pop("extra_headers", None)
    if extra_headers is not None:
        # The Python SDK takes per-request headers among the params; the Node SDK as a run's request options.
        options["requestOptions"] = {"headers": extra_headers}
    for name in ("extra_query", "extra_body", "timeout"):
        if name in arguments:
            _unadapted(f"the request parameter {name}")
    cancelled = {**setup.run_options, **overrides}.get("cancelled")
    cancellation = None if cancelled is None else NodeCancellation(sdk, cancelled)
    if cancellation is not None:
        options["signal"] = cancellation.signal
    return _Prepared(sdk, runner, client, arguments, options, cancellation)


def run_in_node(
    scenario: ScenarioRun,
    params: dict[str, Any] | None,
    overrides: Mapping[str, Any],
    *,
    streams: JsObject | None = None,
) -> CapturedRun:
    """``ScenarioRun.run`` against the Node SDK; the runner's error is captured as the Python run's is."""
    prepared = _prepared(scenario, params, overrides, streams=streams)
    sdk = prepared.sdk
    with prepared.watching():
        try:
            response = prepared.runner.call(
                "run", prepared.client, prepared.arguments, prepared.options, timeout=RUN_SECONDS
            )
        except NodeError as error:
            sdk.settle()
            return scenario.captured(None, error)
        sdk.settle()
    return scenario.captured(response, None)


class NodeCustomInput:
    """A list-like Node object that is no Array, to give a Node run as ``params.input`` (``input``), and the reads
    the SDK made of it (``reads``: iterating, its length, an item, toJSON): the Node form of a custom Python
    container (``sdk_loop.mjs`` customInput)."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.sdk = shared_sdk()
        made = self.sdk.invoke("customInput", {"items": items}, module="sdk_loop.mjs")
        self.input: JsObject = made["input"]
        self._log: JsObject = made["log"]

    @property
    def reads(self) -> list[str]:
        return list(self.sdk.invoke("get", {"target": self._log, "name": "reads"}))


class NodeScenarioRunner:
    """The scenario's Node runner kept for a check that drives it by hand, as ``ScenarioRun.build_runner`` gives a
    Python one: ``run`` it (on the scenario's cassette or another), again while a run is active, and ``close`` it.

    A run's error is raised (a Python runner raises it too): a refused second run, say, is a
    :class:`~conformance.node.bridge.NodeError`."""

    def __init__(self, scenario: ScenarioRun) -> None:
        self.prepared = _prepared(scenario, None, {})

    def run(
        self,
        transport: CassetteTransport | None = None,
        params: Mapping[str, Any] | None = None,
        *,
        default_delivery: bool = False,
    ) -> Any:
        """``runner.run(client, params, options)``: the client answered by ``transport`` (else the scenario's), and
        with ``default_delivery`` no ``stream``/``eager`` option at all, so the SDK's default delivery applies (a
        mode always says which delivery it wants)."""
        prepared = self.prepared
        client = prepared.client
        if transport is not None:
            client = prepared.sdk.client(cassette_fetch(transport), maxRetries=0)
        options = dict(prepared.options)
        if default_delivery:
            for name in ("stream", "eager", "onEvent"):
                options.pop(name, None)
        arguments = dict(prepared.arguments if params is None else params)
        with prepared.watching():
            try:
                return prepared.runner.call("run", client, arguments, options, timeout=RUN_SECONDS)
            finally:
                prepared.sdk.settle()

    def close(self) -> Any:
        return self.prepared.runner.call("close")


def run_recording_streams(scenario: ScenarioRun) -> CapturedRun:
    """``ScenarioRun.run`` against the Node SDK with its response streams served event by event through fetch, and
    their life on the scenario's timeline once the run has ended: ``opened:<n>`` for each event stream served,
    ``closed:<n>`` for each one read to its end or cancelled by then (what the Python check's closing transport
    records; in Node the body is a ReadableStream the SDK reads through fetch, so only the Node side sees it)."""
    sdk = shared_sdk()
    log = sdk.invoke("streamLog", {})
    assert isinstance(log, JsObject)
    captured = run_in_node(scenario, None, {}, streams=log)
    for entry in sdk.invoke("get", {"target": log, "name": "entries"}):
        scenario.timeline.add(str(entry))
    return captured


def runner_with_computer(early_execution: Any) -> JsObject:
    """A Node ``ResponsesToolRunner`` built with a Node ``ComputerToolset`` (over a probe driver no check calls) and
    this ``earlyExecution`` policy: what the runner refuses at construction is raised (a ``TypeError`` arrives as
    :class:`~conformance.node.sdk.broker.NodeArgumentError`, a ``ValueError``)."""
    sdk = shared_sdk()
    toolset = _probe_computer_toolset(sdk, computer_probe("sync"))
    runner = sdk.construct(
        "ResponsesToolRunner", {"functions": [], "computer": toolset, "earlyExecution": early_execution}
    )
    assert isinstance(runner, JsObject)
    return runner


def iterate_in_node(scenario: ScenarioRun, on_turn: Callable[[Any], None], overrides: Mapping[str, Any]) -> CapturedRun:
    """``ScenarioRun.iterate`` against the Node SDK: its ``iterate`` async generator advanced one turn at a time,
    ``on_turn`` called on each :class:`NodeTurn` while the generator waits at that turn."""
    prepared = _prepared(scenario, None, overrides)
    sdk = prepared.sdk
    turns: list[NodeTurn] = []
    with prepared.watching():
        try:
            generator = prepared.runner.call("iterate", prepared.client, prepared.arguments, prepared.options)
            assert isinstance(generator, JsObject)
            while True:
                step = generator.call("next", timeout=RUN_SECONDS)
                # Observers the SDK does not await (diagnostics) land before the turn is handed over, as in Python.
                sdk.settle()
                if step.get("done"):
                    break
                turn = NodeTurn(step["value"])
                turns.append(turn)
                on_turn(turn)
        except NodeError as error:
            sdk.settle()
            return scenario.captured(None, error, list(turns))
    return scenario.captured(turns[-1].response if turns else None, None, list(turns))


def close_at_first_turn_in_node(scenario: ScenarioRun) -> None:
    """Advance the Node runner's ``iterate`` generator to its first turn, then close it there with ``return()``
    (what leaving a for-await loop early does): the Node form of closing the Python iterator at a boundary."""
    prepared = _prepared(scenario, None, {})
    with prepared.watching():
        generator = prepared.runner.call("iterate", prepared.client, prepared.arguments, prepared.options)
        assert isinstance(generator, JsObject)
        generator.call("next", timeout=RUN_SECONDS)
        generator.call("return", timeout=RUN_SECONDS)
        prepared.sdk.settle()


class NodeTurn:
    """A turn of the Node runner's ``iterate`` under the Python turn's names (``supply_outputs``, ``final``, ...).

    The turn's methods stay in Node behind handles and are called there while the generator waits at the turn;
    a turn refusing the call throws a ``TypeError``, which reads as Python's ``ValueError``.
    """

    def __init__(self, turn: Mapping[str, Any]) -> None:
        self.response = turn["response"]
        self.step = int(turn["step"])
        self.final = bool(turn["final"])
        self.tools_executed = bool(turn["toolsExecuted"])
        self.attempted_call_ids = tuple(turn["attemptedCallIds"])
        self.completed_call_ids = tuple(turn["completedCallIds"])
        self._supply_outputs = turn["supplyOutputs"]
        self._append_user_text = turn["appendUserText"]

    def supply_outputs(self, outputs: list[Mapping[str, Any]]) -> None:
        self._supply_outputs.call("call", None, [dict(output) for output in outputs])

    def append_user_text(self, text: str) -> None:
        self._append_user_text.call("call", None, text)


@dataclass
class _Prepared:
    """What one Node run needs, built by :func:`_prepared`, and its cancellation if the run has one."""

    sdk: NodeSdk
    runner: JsObject
    client: JsObject
    arguments: dict[str, Any]
    options: dict[str, Any]
    cancellation: NodeCancellation | None

    @contextmanager
    def watching(self) -> Iterator[None]:
        """The run's cancellation checked before it starts and after each callback while the block runs."""
        if self.cancellation is None:
            yield
            return
        with self.cancellation.watching():
            yield
