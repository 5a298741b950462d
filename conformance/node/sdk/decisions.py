"""One Decisions run through the Node SDK's ``DecisionsToolRunner`` (``--sdk=node``), recorded like a Python run.

The npm ``openai``'s ``helpers/decisions-tool-runner`` is built through the Node host
(:mod:`conformance.node.sdk.broker`) with a registration whose ``observe``, ``candidates``, ``verify`` and executors are
the very Python callables the Python run uses, and a client whose ``fetch`` the run's cassette transport answers (it
records each request as it does for the Python SDK). So :func:`conformance.rig.decisions.run_decisions` fills the same
:class:`~conformance.rig.decisions.DecisionsRun` for either SDK and every check reads both alike.

Names follow the Node idiom (``max_steps`` is ``maxSteps``; the ``cancelled`` predicate is the run's AbortSignal,
:class:`~conformance.node.sdk.callbacks.NodeCancellation`); the result's receipts are read back under the Python
names (``attemptedCandidateIds`` as ``attempted_candidate_ids``), and the runner's error becomes a
:class:`NodeDecisionsToolRunnerError`, a Python ``DecisionsToolRunnerError`` with the Node reason and receipts.
A run option the kit has not mapped makes the check "not checked", with the name.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any, Final

from openai.lib.decisions_tool_runner import DecisionsToolRunnerError

from conformance.assertions import not_checked
from conformance.contracts.runner._node_scenario import cassette_fetch
from conformance.fake_responses import CassetteTransport
from conformance.node.bridge import NodeError, rebuild_error
from conformance.node.sdk.broker import RUN_SECONDS, JsObject, NodeSdk, shared_sdk
from conformance.node.sdk.callbacks import NodeCancellation

# Python run options with the same meaning under a Node name (DecisionsRunnerOptions).
RUN_OPTIONS: Final = {"max_steps": "maxSteps", "on_diagnostic": "onDiagnostic"}
CLIENT_OPTIONS: Final = {"default_headers": "defaultHeaders"}
# DecisionsRunResult's receipts under the Python SDK's names.
RESULT_NAMES: Final = {
    "status": "status",
    "decisions": "decisions",
    "attemptedCandidateIds": "attempted_candidate_ids",
    "completedCandidateIds": "completed_candidate_ids",
}


class NodeDecisionsToolRunnerError(DecisionsToolRunnerError, NodeError):
    """The Node SDK's ``DecisionsToolRunnerError``: its reason and candidate ID receipts under the Python names."""

    js_class = "DecisionsToolRunnerError"

    def __init__(self, reason: str, attempted: list[str], completed: list[str], message: str) -> None:
        # Not the Python SDK's constructor: that looks the message up by reason, and the Node reasons and messages
        # are the Node SDK's own.
        RuntimeError.__init__(self, message)
        self.reason: Any = reason
        self.attempted_candidate_ids = tuple(attempted)
        self.completed_candidate_ids = tuple(completed)


def _invoke(sdk: NodeSdk, member: str, args: Mapping[str, Any]) -> Any:
    """Call export ``member`` of ``sdk_decisions.mjs``, the broker's Decisions extension."""
    return sdk.invoke(member, args, module="sdk_decisions.mjs")


def _settler(sdk: NodeSdk) -> JsObject:
    made = _invoke(sdk, "decisionsSettler", {})
    assert isinstance(made, JsObject)
    return made


class NodeSharedObservation:
    """:class:`conformance.rig.decisions.SharedObservation` as a Node application: ``observe`` and the candidates
    callback it makes are Node functions sharing one Node array with the runner."""

    def __init__(self, parts: list[dict[str, Any]]) -> None:
        sdk = shared_sdk()
        self.application = _invoke(sdk, "sharedObservation", {"parts": parts})
        assert isinstance(self.application, JsObject)
        self.observe = sdk.invoke("get", {"target": self.application, "name": "observe"})

    def candidates(self, scripted: Callable[[Any], list[Any]]) -> Any:
        return self.application.call("candidatesAfterEdits", scripted)


def _unadapted(what: str) -> None:
    not_checked(f"on the Node SDK: this Decisions run uses {what}, which the kit has not mapped to the Node SDK yet")


def node_options(run_options: Mapping[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for name, value in run_options.items():
        if name not in RUN_OPTIONS:
            _unadapted(f"the run option {name}")
        options[RUN_OPTIONS[name]] = value
    return options


def node_client_options(client_options: Mapping[str, Any] | None, max_retries: int) -> dict[str, Any]:
    options: dict[str, Any] = {"maxRetries": max_retries}
    for name, value in (client_options or {}).items():
        if name not in CLIENT_OPTIONS:
            _unadapted(f"the client option {name}")
        options[CLIENT_OPTIONS[name]] = value
    return options


class NodeDecisionsRunner:
    """A Node ``DecisionsToolRunner`` over one registration, kept so a check can run it more than once, close it
    or run it again while a run is active (RN-LIFE-002/003), as it does the Python runner."""

    def __init__(
        self,
        *,
        observe: Callable[[], Any] | JsObject,
        candidates: Callable[[Any], list[Any]] | JsObject,
        verify: Callable[[Any], Any] | None = None,
    ) -> None:
        self.sdk = shared_sdk()
        registration: dict[str, Any] = {"observe": observe, "candidates": candidates}
        if verify is not None:
            registration["verify"] = verify
        made = self.sdk.construct("DecisionsToolRunner", registration)
        assert isinstance(made, JsObject)
        self.runner = made

    def close(self) -> Any:
        return self.runner.call("close")

    def run(
        self,
        transport: CassetteTransport,
        params: Mapping[str, Any],
        run_options: Mapping[str, Any] | None = None,
        *,
        client_options: Mapping[str, Any] | None = None,
        max_retries: int = 0,
    ) -> tuple[Any, BaseException | None]:
        """``runner.run(client, params, options)``: (the result under Python names, None), or (None, the runner's
        error). An error that is not the runner's own (the kit's, or the bridge's) is raised. A ``cancelled``
        predicate becomes the run's AbortSignal, aborted as soon as it reports a stop (asked after each callback)."""
        sdk = self.sdk
        given = dict(run_options or {})
        cancelled = given.pop("cancelled", None)
        options = node_options(given)
        cancellation = None if cancelled is None else NodeCancellation(sdk, cancelled)
        if cancellation is not None:
            options["signal"] = cancellation.signal
        client = sdk.client(cassette_fetch(transport), **node_client_options(client_options, max_retries))
        with cancellation.watching() if cancellation is not None else contextlib.nullcontext():
            outcome = _settler(sdk).call("run", self.runner, client, dict(params), options, timeout=RUN_SECONDS)
            # Diagnostics are not awaited by the runner: let the ones still queued reach the observer before reading.
            sdk.settle()
        failure = outcome.get("failure")
        if failure is None:
            result = outcome["result"]
            return {python: result.get(node) for node, python in RESULT_NAMES.items()}, None
        if "reason" not in failure:
            raise rebuild_error(failure)
        error = NodeDecisionsToolRunnerError(
            str(failure["reason"]), list(failure["attempted"]), list(failure["completed"]), str(failure["message"])
        )
        return None, error


def run_in_node(
    transport: CassetteTransport,
    *,
    observe: Callable[[], Any] | JsObject,
    candidates: Callable[[Any], list[Any]] | JsObject,
    verify: Callable[[Any], Any] | None,
    params: Mapping[str, Any],
    run_options: Mapping[str, Any],
    client_options: Mapping[str, Any] | None = None,
    max_retries: int = 0,
) -> tuple[Any, BaseException | None]:
    """One run of a fresh :class:`NodeDecisionsRunner` (see its ``run``)."""
    runner = NodeDecisionsRunner(observe=observe, candidates=candidates, verify=verify)
    return runner.run(transport, params, run_options, client_options=client_options, max_retries=max_retries)
