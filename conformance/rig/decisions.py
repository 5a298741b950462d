"""One run of the SDK's Decisions runner (sync or async) over a cassette, with what a check needs to see.

The application side is scripted: each :class:`Action` is a candidate whose executor records itself on the
trace (and may then raise), a ``done`` candidate always follows, and observations come from a callable. The
async flavour wraps the same sync callbacks, so both flavours see identical inputs; so does the ``node`` flavour
(``--sdk=node``), whose run goes through the npm ``openai``'s Decisions runner
(:mod:`conformance.node.sdk.decisions`) with the same callbacks, cassette transport and trace.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from openai.lib.decisions_tool_runner import (
    AsyncDecisionsToolRunner,
    DecisionsToolRunner,
    DecisionsToolRunnerError,
)

from conformance import cassettes
from conformance.cassettes import Cassette
from conformance.fake_responses import CassetteTransport, SentRequest
from conformance.flavours import NODE, Flavour
from conformance.rig.modes import active_modes
from conformance.rig.runners import EndedRun, cassette_client, in_flavour, run_to_end

DEFAULT_TASK = "Review the document"


def flavours() -> tuple[Flavour, ...]:
    """The runner flavours of the SDK under check: Python's sync and async, or the Node SDK's (``--node-sdk``).

    Read while checks are collected, after the plugin has chosen the run's SDK."""
    return tuple(dict.fromkeys(mode.flavour for mode in active_modes()))


@dataclass(frozen=True)
class Action:
    """A candidate with an executor; ``failure`` is raised by the executor after it is recorded."""

    id: str
    failure: BaseException | None = None


def actions(*ids: str) -> tuple[Action, ...]:
    """Plain candidates with these IDs, in order (repeats allowed: a check may offer a duplicate)."""
    return tuple(Action(candidate) for candidate in ids)


def observations(*texts: str) -> Callable[[], str]:
    """An ``observe`` callback returning ``texts`` in turn, starting over after the last."""
    cycle = itertools.cycle(texts)
    return lambda: next(cycle)


@dataclass
class DecisionsRun(EndedRun):
    """How one Decisions run ended and what it did."""

    result: Any
    error: BaseException | None
    requests: list[SentRequest]
    # Ordered: "diagnostic:<stage>:<reason>:<call_id>" for every diagnostic, "execute:<id>" when an executor starts.
    trace: list[str] = field(default_factory=list)
    diagnostics: list[dict[str, Any]] = field(default_factory=list)

    @property
    def executed(self) -> list[str]:
        """The IDs of the candidates whose executor ran, in order."""
        return [entry.split(":", 1)[1] for entry in self.trace if entry.startswith("execute:")]

    def header(self, name: str) -> list[str | None]:
        """The value of header ``name`` on every request sent, in order (None where absent)."""
        return [request.headers.get(name.lower()) for request in self.requests]


class SharedObservation:
    """An application that reuses one observation object (``observe`` returns it every time) and whose candidates
    callback edits both it and the observation it receives before answering: the runner must have sent, and must
    hand on, its own snapshot of what ``observe`` returned."""

    def __init__(self, parts: list[dict[str, Any]]) -> None:
        self.parts = parts

    def observe(self) -> list[dict[str, Any]]:
        return self.parts

    def candidates(self, scripted: Callable[[Any], list[Any]]) -> Callable[[Any], list[Any]]:
        def edit_then_answer(received: Any) -> list[Any]:
            for observation in (self.parts, received):
                if isinstance(observation, list) and observation and isinstance(observation[0], dict):
                    observation[0]["text"] = "changed by the application"
                    observation.append({"type": "input_text", "text": "appended later"})
            return scripted(received)

        return edit_then_answer


def shared_observation(flavour: Flavour, parts: list[dict[str, Any]]) -> Any:
    """A :class:`SharedObservation` for the runner of ``flavour``: for ``node`` the same application in Node
    (:class:`conformance.node.sdk.decisions.NodeSharedObservation`), since an object returned across the bridge is
    a copy no later Python edit could reach."""
    if flavour == NODE:
        from conformance.node.sdk.decisions import NodeSharedObservation

        return NodeSharedObservation(parts)
    return SharedObservation(parts)


def run_decisions(
    cassette: Cassette | str,
    flavour: Flavour,
    *,
    actions: tuple[Action, ...] = (Action("review"),),
    observation: Callable[[], Any] = lambda: "page",
    task: str = DEFAULT_TASK,
    verify: Callable[[Any], Any] | None = None,
    on_diagnostic: Callable[[dict[str, Any]], None] | None = None,
    client_options: Mapping[str, Any] | None = None,
    max_retries: int = 0,
    done: object = True,
    application_candidates: Callable[[Callable[[Any], list[Any]]], Any] | None = None,
    params: Mapping[str, Any] | None = None,
    **run_options: Any,
) -> DecisionsRun:
    """Run ``cassette`` (or the bundled cassette of that name) once; ``on_diagnostic`` (if given) is called after
    the diagnostic is recorded, and ``run_options`` (e.g. ``max_steps``) go to ``runner.run``. ``done`` is the
    value of the done candidate's ``done`` flag (a check may offer a look-alike of True), and
    ``application_candidates`` (if given) makes the registered candidates callback from the scripted one (an
    application that does more than answer: :class:`SharedObservation`). ``params`` (if given) replace the run
    parameters, the default model and task. A runner error is captured, not raised."""
    loaded = cassettes.bundled(cassette) if isinstance(cassette, str) else cassette
    transport = CassetteTransport(loaded, match="endpoint")
    run = DecisionsRun(None, None, transport.sent)

    def record(diagnostic: dict[str, Any]) -> None:
        run.diagnostics.append(diagnostic)
        run.trace.append(f"diagnostic:{diagnostic['stage']}:{diagnostic['reason']}:{diagnostic['call_id']}")
        if on_diagnostic is not None:
            on_diagnostic(diagnostic)

    def executor(action: Action) -> Callable[[], None]:
        def execute() -> None:
            run.trace.append(f"execute:{action.id}")
            if action.failure is not None:
                raise action.failure

        return execute

    def scripted(seen: Any) -> list[Any]:
        listed: list[Any] = [
            {"id": action.id, "description": f"Do {action.id}", "execute": in_flavour(flavour, executor(action))}
            for action in actions
        ]
        return [*listed, {"id": "done", "description": "The task is complete", "done": done}]

    candidates = scripted if application_candidates is None else application_candidates(scripted)

    params = {"model": "gpt-test", "input": task} if params is None else dict(params)
    options = {"on_diagnostic": record, **run_options}
    if flavour == NODE:
        from conformance.node.sdk.decisions import run_in_node

        run.result, run.error = run_in_node(
            transport,
            observe=observation,
            candidates=candidates,
            verify=verify,
            params=params,
            run_options=options,
            client_options=client_options,
            max_retries=max_retries,
        )
        return run

    kind = DecisionsToolRunner if flavour == "sync" else AsyncDecisionsToolRunner
    runner = kind(
        observe=in_flavour(flavour, observation),
        candidates=in_flavour(flavour, candidates),
        verify=None if verify is None else in_flavour(flavour, verify),
    )
    client = cassette_client(transport, flavour, max_retries=max_retries, options=client_options)
    try:
        run.result = run_to_end(flavour, runner, client, params, options)
    except (DecisionsToolRunnerError, ValueError) as error:
        run.error = error
    return run
