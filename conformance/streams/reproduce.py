"""Does ``driverkit replay`` reproduce a finding? The replay's own report, judged by the same rules.

A shrunk cassette is handed to the user with one command: ``driverkit replay FILE --mode M``. This module runs
exactly that replay (:func:`conformance.replay.replay`) and reads its report back as an :class:`Observation`:
the requests it sent (their bodies), the local calls it made (a function's ``reference`` argument, a browser
click's target and a computer click's x coordinate name the call, as in generated streams), how it stopped and
its receipts. The rules that need what a replay cannot show (stream events, checkpoint contents, the returned
response's ID) skip such an observation; every other rule judges it as it judges the fuzz harness's run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Final

from conformance.cassettes import Cassette, JSONObject
from conformance.replay import MODES, NO_RECORDED_OUTPUT, ReplayReport, replay
from conformance.rig import Mode
from conformance.streams.facts import Facts
from conformance.streams.observation import Observation, mode_named
from conformance.streams.properties import Violation, check_run, semantics

# Rules a replay cannot show: they need stream events or checkpoint contents on a timeline.
UNSEEN_BY_REPLAY: Final = frozenset(
    {"before-completion", "before-its-item", "no-save-before", "no-save-after", "save-before", "save-after"}
) | frozenset({"checkpoint-fields", "answer", "answer-with-calls"})
RUNNER_ERRORS: Final = frozenset({"ToolRunnerError", "ToolRunnerCancelledError"})


def _field(value: object, name: str) -> object:
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def _call_id(name: str, argument: object) -> str | None:
    if name.startswith("function "):
        reference = _field(argument, "reference")
        return None if reference is None else str(reference)
    target = _field(argument, "target")
    if target is not None:
        return str(target)
    x = _field(argument, "x")
    if x is not None:
        return f"c{x}"
    return None


def replay_mode(mode: Mode) -> str:
    """The ``--mode`` of ``driverkit replay`` for a run mode (a ledger comes from the cassette's header)."""
    return f"{mode.flavour}-{mode.delivery}"


def observation_of(report: ReplayReport, mode: Mode) -> Observation:
    """What a replay showed, as an observation of a run in ``mode``."""
    trace = report.trace
    assert trace is not None, "a replay always keeps its trace"
    timed: list[tuple[float, int, str]] = [(at, 0, f"request:{index}") for index, (at, _) in enumerate(trace.requests)]
    functions: dict[str, str] = {}
    for at, name, argument in trace.local_calls:
        call_id = _call_id(name, argument)
        if call_id is None:
            continue
        if name.startswith("function "):
            functions[name[len("function ") :]] = NO_RECORDED_OUTPUT
        timed.append((at, 1, f"call:{name.replace(' ', '_')}:{call_id}"))
    error_type = report.error.split(":", 1)[0] if report.error else None
    receipts = error_type in RUNNER_ERRORS
    bodies: tuple[JSONObject, ...] = tuple(request.body or {} for _, request in trace.requests)
    return Observation(
        mode=mode,
        entries=tuple(entry for _, _, entry in sorted(timed)),
        bodies=bodies,
        error=report.error,
        error_type=error_type,
        attempted=report.attempted_call_ids if receipts else None,
        completed=report.completed_call_ids if receipts else None,
        replies=functions,
        sees=frozenset(),
    )


def with_ledger(cassette: Cassette, ledger: bool) -> Cassette:
    """``cassette`` whose header asks replay for a ledger (``meta.run.ledger``) exactly when ``ledger``."""
    run = dict(cassette.meta.get("run") or {})  # type: ignore[call-overload]
    if ledger:
        run["ledger"] = True
    else:
        run.pop("ledger", None)
    meta = {key: value for key, value in cassette.meta.items() if key != "run"}
    if run:
        meta["run"] = run
    return replace(cassette, meta=meta)


def replayed(cassette: Cassette, mode: Mode) -> Observation:
    """Replay ``cassette`` as ``driverkit replay --mode`` does, in ``mode`` (its ledger set in the header)."""
    return observation_of(replay(with_ledger(cassette, mode.ledger), mode=replay_mode(mode)), mode)


def reproduces(cassette: Cassette, violation: Violation) -> tuple[bool, str]:
    """Whether ``driverkit replay`` shows ``violation`` on ``cassette``, and in words what it shows."""
    if violation.rule in UNSEEN_BY_REPLAY:
        return False, f"a replay shows no stream events or checkpoints, which the rule {violation.rule} reads"
    mode = mode_named(violation.mode)
    if mode.flavour == "node" or replay_mode(mode) not in MODES:
        return False, f"driverkit replay runs the Python SDK's runners, not the {violation.mode} run"
    facts = Facts.of(cassette)
    observed = replayed(cassette, mode)
    if violation.rule == "modes-disagree" and violation.reference is not None:
        reference = replayed(cassette, mode_named(violation.reference))
        differ = semantics(facts, observed) != semantics(facts, reference)
        return differ, f"{observed.summary()} | {reference.summary()}"
    shown = [found for found in check_run(facts, observed) if found.key == violation.key]
    return bool(shown), shown[0].detail if shown else observed.summary()


__all__ = ["UNSEEN_BY_REPLAY", "observation_of", "replay_mode", "replayed", "reproduces", "with_ledger"]
