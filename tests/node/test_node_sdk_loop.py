"""The kit's own Node adaptations for live streams, turns, cancellation and typed registrations (the loop group),
tested directly: typed registrations, cancellation as an AbortSignal, and observers settled before a run returns.

The patched copies of npm ``openai`` that the loop group's checks must catch are the loop family of
tests/node/npm_patch_catalogues.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.contracts.runner._scenario import LOOKUP_SCHEMA, ScenarioRun, Setup, load
from conformance.node.sdk.broker import JsObject, NodeArgumentError, NodeError, NodeSdk
from conformance.node.sdk.callbacks import NodeCancellation
from conformance.rig.modes import NODE_MODES

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.node]


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
