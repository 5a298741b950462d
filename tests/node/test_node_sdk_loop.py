"""``--node-sdk`` for live streams, turns, cancellation and typed registrations (issue 17, the loop group).

Each patch is one textual change to a copy of the installed npm ``openai`` (the pattern of tests/node/test_node_sdk.py):
the check covering the behaviour runs against the copy and the certificate must blame exactly the patched clause,
while an unpatched copy passes the same checks. The kit's own Node adaptations are tested directly below them.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.contracts.runner._scenario import LOOKUP_SCHEMA, ScenarioRun, Setup, load
from conformance.node.sdk.broker import JsObject, NodeArgumentError, NodeError, NodeSdk
from conformance.node.sdk.callbacks import NodeCancellation
from conformance.rig.modes import NODE_MODES
from tests.node.npm_patches import (
    TOOL_RUNNER_MODULE,
    NpmPatch,
    patched_copies_fail_exactly_their_clause,
    unpatched_copy_passes,
)

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]

LIVE = "conformance/contracts/runner/check_live_streams.py"
TURNS = "conformance/contracts/runner/check_turns.py"
CONCURRENCY = "conformance/contracts/runner/check_concurrency.py"

PATCHES: dict[str, NpmPatch] = {
    # A function call whose output item is still in progress (or incomplete) counts as completed: it passes the
    # item validation and dispatch (two places test the status; both take the widened list).
    "runs-unfinished-items": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "[undefined, null, 'completed'].includes(item.status)",
        "[undefined, null, 'completed', 'in_progress', 'incomplete'].includes(item.status)",
        f"{LIVE}::test_live_stream_outcome[live-call-in-progress-node-plain]",
        "RN-STREAM-008",
        everywhere=True,
    ),
    # Arguments that are not a JSON object reach the executor anyway (wrapped in an object).
    "executes-malformed-arguments": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "const args = JSON.parse(item.arguments);",
        "const args = (() => { try { const value = JSON.parse(item.arguments);"
        " return isObj(value) ? value : { value }; } catch { return { raw: item.arguments }; } })();",
        f"{LIVE}::test_live_stream_outcome[live-arguments-invalid-node-plain]",
        "RN-STREAM-009",
    ),
    # An incomplete response is inspected as if it had completed: its calls run and the run goes on.
    "acts-on-incomplete-responses": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "throw new RunnerValidationError('Response was not completed.');",
        "if (status !== 'incomplete') throw new RunnerValidationError('Response was not completed.');",
        f"{LIVE}::test_live_stream_outcome[live-response-incomplete-node-plain]",
        "RN-STREAM-010",
    ),
    # The client never retries, so a request failing with a retryable HTTP error stops the run.
    "never-retries": NpmPatch.one(
        "client.mjs",
        "async shouldRetry(response) {",
        "async shouldRetry(response) { return false;",
        f"{LIVE}::test_live_stream_outcome[live-http-error-then-retry-node-stream]",
        "RN-STREAM-012",
    ),
    # An incomplete response stops the run with the generic message instead of the fixed one naming it.
    "generic-incomplete-message": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "throw new RunnerValidationError('Response was not completed.');",
        "throw new Error('Response was not completed.');",
        f"{LIVE}::test_incomplete_response_message_names_it",
        "RN-ERR-002",
    ),
    # supplyOutputs accepts the outputs but keeps none, so the executor runs anyway.
    "supplied-outputs-dropped": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "supplied.set(id, output);",
        "void output;",
        f"{TURNS}::test_supplied_output_replaces_unattempted_function",
        "RN-TURN-001",
    ),
    # appendUserText's message goes before the turn's outputs instead of after them.
    "user-text-before-outputs": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "for (const item of [...toResponseInputItems(pending), ...outputs, ...userText]) {",
        "for (const item of [...toResponseInputItems(pending), ...userText, ...outputs]) {",
        f"{TURNS}::test_append_user_text_goes_after_outputs",
        "RN-TURN-002",
    ),
    # Closing the iterator at a turn (return()) first runs the turn's pending calls.
    "close-runs-pending": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "active = false;",
        "active = false; if (!final) for (const item of pending.slice(prefixLength)) await dispatch(item);",
        f"{TURNS}::test_closing_iterator_at_boundary_runs_nothing",
        "RN-TURN-003",
    ),
    # Dispatch ignores the run's signal: an aborted run goes on with the turn's next call.
    "dispatch-ignores-signal": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "options, signal, supplied, record) {",
        "options, ignored, supplied, record) { const signal = undefined;",
        f"{TURNS}::test_cancelled_predicate_stops_with_receipts",
        "RN-CANCEL-001",
    ),
    # A typed registration (runnerFunction) marked independent never joins a concurrency window.
    "typed-never-independent": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "if (independent === true) {",
        "if (independent === true && !execute[runnerFunctionStages]) {",
        f"{CONCURRENCY}::test_from_tool_registrations_can_be_independent",
        "RN-CONC-009",
    ),
    # Settling a window stops waiting once the run is aborted: the run ends while its started calls still run.
    "abort-without-draining": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "const results = await Promise.all(admitted);",
        "const results = await Promise.race([Promise.all(admitted), new Promise((_, reject) =>"
        " signal?.addEventListener('abort', () => reject(signal.reason)))]);",
        f"{CONCURRENCY}::test_async_cancellation_drains_started_independent_calls",
        "RN-CONC-010",
    ),
}


test_a_patched_node_sdk_fails_exactly_its_clause = patched_copies_fail_exactly_their_clause(PATCHES)


test_an_unpatched_copy_passes_the_same_checks = unpatched_copy_passes(PATCHES)


# ------------------------------------------------------------------------------------------ the kit's adaptations


def _typed(sdk: NodeSdk, execute: Any, schema: dict[str, Any] = LOOKUP_SCHEMA) -> Any:
    return sdk.invoke("typedFunction", {"name": "lookup", "description": "d", "schema": schema, "execute": execute})


def test_a_typed_registration_hands_the_executor_validated_arguments_only(sdk: NodeSdk) -> None:
    received: list[Any] = []
    registered = _typed(sdk, lambda arguments: received.append(dict(arguments)) or "ok")
    assert registered["tool"]["name"] == "lookup" and registered["tool"]["strict"] is True
    execute = registered["execute"]
    assert isinstance(execute, JsObject)
    assert execute.call("call", None, {"reference": "r1"}) == "ok"
    for wrong in ({"reference": 5}, {"reference": "r2", "extra": "x"}, {}):
        with pytest.raises(NodeError, match="validation failed"):
            execute.call("call", None, wrong)
    assert received == [{"reference": "r1"}]


def test_a_typed_registration_refuses_a_schema_the_kit_cannot_validate_in_full(sdk: NodeSdk) -> None:
    numeric = {**LOOKUP_SCHEMA, "properties": {"reference": {"type": "integer"}}}
    optional = {**LOOKUP_SCHEMA, "required": []}
    for schema in (numeric, optional):
        with pytest.raises(NodeArgumentError, match="only objects of required string properties"):
            _typed(sdk, lambda arguments: "ok", schema)


def _aborted(sdk: NodeSdk, cancellation: NodeCancellation) -> bool:
    return bool(sdk.invoke("get", {"target": cancellation.signal, "name": "aborted"}))


def test_cancellation_aborts_once_a_callback_has_made_the_predicate_true(sdk: NodeSdk) -> None:
    flag: list[bool] = []
    cancellation = NodeCancellation(sdk, lambda: bool(flag))
    driver = sdk.proxy({"quiet": lambda *_: "quiet", "flip": lambda *_: flag.append(True) or "flipped"})
    with sdk.checkpoint(cancellation.check):
        assert driver.call("quiet") == "quiet"
        assert not _aborted(sdk, cancellation)
        # The abort reaches Node before the callback's answer: the caller already sees an aborted signal.
        assert driver.call("flip") == "flipped"
        assert _aborted(sdk, cancellation)
    assert cancellation.aborted


def test_cancellation_is_not_checked_outside_its_run(sdk: NodeSdk) -> None:
    flag = [True]
    cancellation = NodeCancellation(sdk, lambda: bool(flag))
    driver = sdk.proxy({"quiet": lambda *_: "quiet"})
    assert driver.call("quiet") == "quiet"
    assert not _aborted(sdk, cancellation)


def test_an_observer_called_right_after_an_answer_is_settled_before_the_run_returns(
    sdk: NodeSdk, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The SDK reports a request's diagnostic (an observer it does not await) right after a callback's answer lets
    # it go on; settle() must still wait for it. Before the fix about 2% of runs lost one: many runs make a lost
    # one all but certain.
    monkeypatch.setattr("conformance.contracts.runner._node_scenario.shared_sdk", lambda: sdk)
    lost = []
    for attempt in range(150):
        mode = NODE_MODES[attempt % len(NODE_MODES)]
        outcome = ScenarioRun(load("one-function"), Setup(), mode).run()
        seen = [d for d in outcome.diagnostics if d["stage"] == "request" and d["reason"] == "completed"]
        if len(seen) != 2:
            lost.append((mode.id, len(seen)))
    assert not lost
