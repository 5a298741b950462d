"""Python callables as the Node SDK calls them (conformance/node/sdk/callbacks.py): a polled ``cancelled``
predicate as an AbortSignal, the live probe of a signal Node passed, and in-place edits written back."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.node.sdk.broker import Data, JsObject, NodeSdk, Signal
from conformance.node.sdk.callbacks import NodeCancellation, as_edited, live_probe, node_callback
from conformance.node.sdk.toolsets import as_node_callable

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.node]


def _aborted(sdk: NodeSdk, signal: JsObject) -> bool:
    return bool(sdk.invoke("get", {"target": signal, "name": "aborted"}))


def test_the_signal_aborts_only_once_the_predicate_reports_a_stop(sdk: NodeSdk) -> None:
    stop: list[bool] = []
    cancellation = NodeCancellation(sdk, lambda: bool(stop))
    assert cancellation.poll() is False and not _aborted(sdk, cancellation.signal)
    stop.append(True)
    assert cancellation.poll() is True and _aborted(sdk, cancellation.signal)


def test_a_callback_that_reports_a_stop_aborts_before_node_sees_its_answer(sdk: NodeSdk) -> None:
    stop: list[bool] = []
    cancellation = NodeCancellation(sdk, lambda: bool(stop))
    seen: list[bool] = []
    # Node reads the signal in the second method, after the first method's answer reached it.
    proxy = sdk.proxy({"report": lambda *_: stop.append(True), "look": lambda *_: seen.append(True)})
    with cancellation.watching():
        proxy.call("report")
        assert _aborted(sdk, cancellation.signal)
        proxy.call("look")
    assert seen == [True]
    assert sdk.active_checkpoint is None, "the cancellation was still watched after its call ended"


def test_a_live_probe_follows_the_signal_node_passed_and_not_another(sdk: NodeSdk) -> None:
    stop: list[bool] = []
    cancellation = NodeCancellation(sdk, lambda: bool(stop))
    other = NodeCancellation(sdk, lambda: False)
    with cancellation.watching():
        ours = sdk.invoke("get", {"target": cancellation.controller, "name": "signal"})
        theirs = sdk.invoke("get", {"target": other.controller, "name": "signal"})
        assert isinstance(ours, Signal) and isinstance(theirs, Signal) and ours.handle is not None
        probes = [live_probe(sdk, ours), live_probe(sdk, theirs)]
    assert [probe() for probe in probes] == [False, False]
    stop.append(True)  # after the call: a kept probe still follows its call's predicate
    assert [probe() for probe in probes] == [True, False]


def test_edits_are_plain_json_with_attribute_assignments() -> None:
    action = Data(type="click", x=1, y=2, path=[Data(x=0, y=0)])
    action.x = 999
    action.path[0].y = 5
    assert as_edited(action) == {"type": "click", "x": 999, "y": 2, "path": [{"x": 0, "y": 5}]}


def test_cancelled_is_passed_only_to_callables_declaring_it(sdk: NodeSdk) -> None:
    received: list[Any] = []

    def declares(action: object, *, cancelled: Any = None) -> bool:
        received.append(cancelled)
        return True

    def plain(action: object) -> bool:
        received.append("plain")
        return True

    cancellation = NodeCancellation(sdk, lambda: False)
    proxy = sdk.proxy({"declares": node_callback(sdk, declares, 1), "plain": node_callback(sdk, plain, 1)})
    with cancellation.watching():
        proxy.call("declares", {"type": "wait"}, {"signal": cancellation.signal})
        proxy.call("plain", {"type": "wait"}, {"signal": cancellation.signal})
    assert callable(received[0]) and received[0]() is False and received[1] == "plain"


def test_an_editing_callback_answers_node_with_the_reply_itself(sdk: NodeSdk) -> None:
    # Whether the edits land on what the SDK passed is proven against the SDK: a patched npm openai handing
    # beforeAction the very action fails TS-COMP-008 (tests/node/npm_patch_catalogues.py, "shared-action").
    def approve(action: Any) -> bool:
        action.x = 999
        return True

    wrapped = node_callback(sdk, approve, 1, edits=True)
    assert isinstance(wrapped, JsObject)
    assert sdk.proxy({"approve": wrapped}).call("approve", {"type": "click", "x": 1}) is True


def test_a_browser_member_sees_a_cancellation_that_comes_while_it_works(sdk: NodeSdk) -> None:
    # The browser toolset's driver members get the same live probe: a snapshot taken when the call came in (what
    # they got before) would tell a member that polls while it waits that the run was never cancelled.
    stop: list[bool] = []
    seen: list[bool] = []

    def wait_for(action: object, *, cancelled: Any = None) -> str:
        seen.append(cancelled())
        stop.append(True)  # the run is cancelled while the member still works
        seen.append(cancelled())
        return "waited"

    cancellation = NodeCancellation(sdk, lambda: bool(stop))
    proxy = sdk.proxy({"wait_for": as_node_callable(sdk, wait_for), "state": as_node_callable(sdk, lambda: "s")})
    with cancellation.watching():
        assert proxy.call("wait_for", {"text": "x"}, {"signal": cancellation.signal}) == "waited"
        assert proxy.call("state", {"signal": cancellation.signal}) == "s"
    assert seen == [False, True]
