"""Run a generated (or shrunk, or field) cassette through the SDK runner in one mode, and observe everything.

The runner is built from the cassette alone, as ``driverkit replay`` builds it (:func:`conformance.replay.plan_from`
reads the stored first request): its functions, browser members, computer and server tools, plus the client
retries a generated header adds. It runs through the runner suite's :class:`ScenarioRun`, so the timeline, probe
drivers, ledger and the Node SDK's bridge are the suite's own; this module adds what generated streams need on
top: each ``output_item.done`` and each ledger save on the timeline, and a computer click labelled with its call
(a generated click's x coordinate is its call number).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import httpx2
from openai.lib.responses_tool_runner import ToolRunnerCancelledError, ToolRunnerError

from conformance import rig
from conformance.cassettes import Cassette, JSONObject
from conformance.contracts.runner._scenario import Function, ScenarioRun, Setup, _ObservedTransport
from conformance.members import COMPUTER_METHODS
from conformance.probes import Act, default_computer_screenshot
from conformance.replay import plan_from
from conformance.rig import Mode
from conformance.streams.observation import Observation
from conformance.streams.strategies import max_retries_of

# A failed request asks for its retry one millisecond later: the SDK's own backoff (half a second and more) would
# make a fuzzed run with a retried failure a hundred times slower without changing what the runner does.
RETRY_AFTER: Final = {"retry-after-ms": "1"}


class _PromptRetries(_ObservedTransport):
    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        return self._prompt(super().handle_request(request))

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        return self._prompt(await super().handle_async_request(request))

    @staticmethod
    def _prompt(response: httpx2.Response) -> httpx2.Response:
        if response.status_code >= 400:
            response.headers.update(RETRY_AFTER)
        return response


def reply_of(name: str) -> str:
    """What the registered function ``name`` answers, so the properties can find it in the next request."""
    return f"{name} answered"


def setup_of(cassette: Cassette) -> Setup:
    """The runner a cassette describes, as a runner-suite :class:`Setup`."""
    plan = plan_from(cassette)
    functions = tuple(Function(str(tool["name"]), reply=reply_of(str(tool["name"]))) for tool in plan.functions)
    return Setup(
        functions=functions,
        browser=tuple(plan.browser_members) or None,
        computer=plan.computer,
        params=dict(plan.params),
        max_retries=max_retries_of(cassette),
    )


def _field(value: object, name: str) -> object:
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


class GeneratedRun(ScenarioRun):
    """A scenario run whose timeline also shows item completions, ledger saves and which click ran."""

    def __init__(self, cassette: Cassette, setup: Setup, mode: Mode) -> None:
        super().__init__(cassette, setup, mode)
        self.transport = _PromptRetries(cassette, self.timeline)

    def _computer_replies(self) -> dict[str, object]:
        def reply_for(method: str) -> Act:
            def act(argument: object) -> object:
                if method == "screenshot":
                    return default_computer_screenshot()
                self.timeline.add(f"call:computer_{method}:c{_field(argument, 'x')}")
                return None

            return Act(act)

        return {method: reply_for(method) for method in COMPUTER_METHODS}

    def on_event(self, event: object) -> None:
        # Right after the suite's own ``event:<type>`` entry, so an eager start is ordered against its item.
        if _field(event, "type") == "response.output_item.done":
            item = _field(event, "item")
            self.timeline.add(f"item:{_field(item, 'call_id') or _field(item, 'id')}")

    def saving_ledger(self) -> Any:
        def save(checkpoint: dict[str, Any]) -> None:
            self.timeline.add(f"save:{len(self.checkpoints)}")
            self.checkpoints.append(checkpoint)

        return rig.checkpoint_ledger(self.mode.flavour, "generated-run", save)


def observe(cassette: Cassette, mode: Mode) -> Observation:
    """Run ``cassette`` once in ``mode`` and report what happened."""
    setup = setup_of(cassette)
    harness = GeneratedRun(cassette, setup, mode)
    options: dict[str, Any] = {}
    if mode.stream:
        options["on_event"] = harness.on_event
    if mode.ledger:
        options["ledger"] = harness.saving_ledger()
    harness.setup.run_options = options
    captured = harness.run()
    error = captured.error
    receipts = isinstance(error, (ToolRunnerError, ToolRunnerCancelledError))
    response = captured.response
    response_id = _field(response, "id") if response is not None else None
    bodies: tuple[JSONObject, ...] = tuple(request.body or {} for request in captured.requests)
    return Observation(
        mode=mode,
        entries=tuple(captured.timeline.entries),
        bodies=bodies,
        checkpoints=tuple(captured.checkpoints),
        error=None if error is None else f"{type(error).__name__}: {error}",
        error_type=None if error is None else type(error).__name__,
        attempted=tuple(getattr(error, "attempted_call_ids", ())) if receipts else None,
        completed=tuple(getattr(error, "completed_call_ids", ())) if receipts else None,
        response_id=None if response_id is None else str(response_id),
        replies={spec.name: str(spec.reply) for spec in setup.functions},
    )


__all__ = ["GeneratedRun", "observe", "reply_of", "setup_of"]
