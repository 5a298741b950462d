"""One run of the SDK's Decisions runner (sync or async) over a cassette, with what a check needs to see.

The application side is scripted: each :class:`Action` is a candidate whose executor records itself on the
trace (and may then raise), a ``done`` candidate always follows, and observations come from a callable. The
async flavour wraps the same sync callbacks, so both flavours see identical inputs.
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
from conformance.flavours import Flavour
from conformance.rig.runners import cassette_client, in_flavour, run_to_end

DEFAULT_TASK = "Review the document"


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
class DecisionsRun:
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
    **run_options: Any,
) -> DecisionsRun:
    """Run ``cassette`` (or the bundled cassette of that name) once; ``on_diagnostic`` (if given) is called after
    the diagnostic is recorded, and ``run_options`` (e.g. ``max_steps``) go to ``runner.run``. A runner error is
    captured, not raised."""
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

        return in_flavour(flavour, execute)

    def candidates(seen: Any) -> list[Any]:
        listed: list[Any] = [
            {"id": action.id, "description": f"Do {action.id}", "execute": executor(action)} for action in actions
        ]
        return [*listed, {"id": "done", "description": "The task is complete", "done": True}]

    kind = DecisionsToolRunner if flavour == "sync" else AsyncDecisionsToolRunner
    runner = kind(
        observe=in_flavour(flavour, observation),
        candidates=in_flavour(flavour, candidates),
        verify=None if verify is None else in_flavour(flavour, verify),
    )
    client = cassette_client(transport, flavour, max_retries=max_retries, options=client_options)
    params = {"model": "gpt-test", "input": task}
    try:
        run.result = run_to_end(flavour, runner, client, params, {"on_diagnostic": record, **run_options})
    except (DecisionsToolRunnerError, ValueError) as error:
        run.error = error
    return run
