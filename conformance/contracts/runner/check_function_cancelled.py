"""Ordinary registered functions and the run's cancellation predicate.

spec/000 "Driver contract" (ordinary function executors may declare the optional keyword-only ``cancelled``
parameter, which then receives the caller's predicate; executors without it still work) and spec/002 "Close and
cancel work".

The scenario registers two functions: ``lookup``, a plain one-argument executor, runs first; ``watch`` declares
``*, cancelled``. ``watch`` asks the predicate it received, then requests a stop through the run's own predicate
(the scenario's cancel flag) and asks again: only the run's predicate turns true at that moment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any
from unittest.mock import patch

import pytest

from conformance.assertions import expect
from conformance.cassette_builder import CassetteBuilder, function_call, message
from conformance.contracts.runner._scenario import Function, Mode, ScenarioRun, Setup, function_tool, modes


class _CancelledRecordingRun(ScenarioRun):
    """A scenario run whose ``watch`` executor declares the keyword-only ``cancelled`` and records what it gives."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.seen: list[object] = []

    def _watch(self, spec: Function, arguments: dict[str, object], cancelled: Callable[[], object]) -> object:
        with self._recorded_call(spec, arguments):
            self.seen.append(cancelled())
            self.cancel_flag.set()
            self.seen.append(cancelled())
            return "watched"

    def _sync_execute(self, spec: Function) -> Callable[[dict[str, object]], object]:
        if spec.name != "watch":
            return super()._sync_execute(spec)

        def execute(arguments: dict[str, object], *, cancelled: Callable[[], object]) -> object:
            return self._watch(spec, arguments, cancelled)

        return execute  # type: ignore[return-value]

    def _async_execute(self, spec: Function) -> Callable[[dict[str, object]], Any]:
        if spec.name != "watch":
            return super()._async_execute(spec)

        async def execute(arguments: dict[str, object], *, cancelled: Callable[[], object]) -> object:
            return self._watch(spec, arguments, cancelled)

        return execute  # type: ignore[return-value]


@contextmanager
def _node_watch(harness: _CancelledRecordingRun) -> Iterator[None]:
    """For a Node run: register ``watch`` as a Node function whose second argument, the ``{ signal }`` context,
    becomes the ``cancelled`` keyword (a live probe of that signal), and the other functions as the scenario
    registers them."""
    from conformance.contracts.runner import _node_scenario
    from conformance.node.sdk.broker import shared_sdk
    from conformance.node.sdk.toolsets import as_node_callable

    registered = _node_scenario._function

    def function(scenario: ScenarioRun, spec: Function) -> dict[str, Any]:
        if spec.name != "watch":
            return registered(scenario, spec)

        def watch(arguments: Any, *, cancelled: Callable[[], object]) -> object:
            return harness._watch(spec, dict(arguments), cancelled)

        execute = as_node_callable(shared_sdk(), watch)
        return {"tool": function_tool("watch"), "execute": execute, "allowOutputOverride": False, "independent": False}

    with patch.object(_node_scenario, "_function", function):
        yield


def _cassette() -> Any:
    return (
        CassetteBuilder("function-cancelled-keyword")
        .turn(
            function_call("lookup", {"reference": "c1"}, call_id="c1"),
            function_call("watch", {"reference": "c2"}, call_id="c2"),
        )
        .turn(message("Done."))
        .build()
    )


@pytest.mark.clause("RN-CANCEL-004")
@pytest.mark.parametrize("mode", modes())
def test_function_declaring_cancelled_gets_the_runs_predicate(mode: Mode) -> None:
    harness = _CancelledRecordingRun(_cassette(), Setup(functions=(Function("lookup"), Function("watch"))), mode)
    with _node_watch(harness) if mode.flavour == "node" else nullcontext():
        outcome = harness.run(cancelled=harness.cancel_flag.is_set)
    entries = outcome.timeline.entries
    expect(
        "done:lookup:c1" in entries,
        "RN-CANCEL-004",
        f"the executor without a cancelled parameter did not run to its end: {entries} ({outcome.error!r})",
    )
    expect(
        "call:watch:c2" in entries,
        "RN-CANCEL-004",
        f"the executor declaring cancelled was never called: {entries} ({outcome.error!r})",
    )
    expect(
        harness.seen == [False, True],
        "RN-CANCEL-004",
        "the cancelled the executor received does not follow the run's predicate (asked before and after the run's "
        f"predicate turned true, it answered {harness.seen}; expected [False, True])",
    )
