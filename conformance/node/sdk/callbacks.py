"""Python callables as the Node SDK calls them: cancellation and in-place edits crossing the bridge.

Two things differ between the SDKs' callbacks, and the kit's checks need both to mean the same on either side:

- Cancellation. The Python SDK polls a ``cancelled`` predicate and hands callables that declare ``cancelled`` a
  probe; the Node SDK takes an ``AbortSignal`` and hands every callback and driver method ``{signal}``.
  :class:`NodeCancellation` turns a check's predicate into an AbortController the kit aborts as soon as the
  predicate reports a stop: the broker asks it after every Python callback, before Node sees that callback's
  answer (:meth:`~conformance.node.sdk.broker.NodeSdk.checkpoint`; only Python code run by a callback can change what
  the predicate says). A callable that declares ``cancelled`` gets :func:`live_probe` of the signal Node passed
  it: whether *that* signal is aborted now. So a check still sees whether the SDK passed the run's own signal: an
  unrelated one never follows the predicate.
- Edits. A JavaScript callback receives the SDK's object itself and may change it in place; a Python callable
  receives a copy. :func:`node_callback` with ``edits=True`` sends the callable's changes back, and the broker
  writes them onto the very objects the SDK passed (``sdk_computer.mjs``), so a check that a callback
  cannot change the action is a real check of the Node SDK, not of the bridge's copying.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from conformance.node.sdk.broker import Data, JsObject, NodeSdk, Signal

_bridges: dict[int, JsObject] = {}
_bridges_lock = threading.Lock()


def _bridge(sdk: NodeSdk) -> JsObject:
    """The broker's computer bridge object (one per Node host)."""
    with _bridges_lock:
        made = _bridges.get(id(sdk))
        if made is None or made.sdk is not sdk:
            made = sdk.invoke("computerBridge", {}, module="sdk_computer.mjs")
            assert isinstance(made, JsObject)
            _bridges[id(sdk)] = made
        return made


def takes_cancelled(function: Callable[..., Any]) -> bool:
    try:
        return "cancelled" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


class NodeCancellation:
    """A polled Python ``cancelled`` predicate as a Node AbortSignal (``signal``: a handle to pass as an option).

    :meth:`watching` wraps the Node call: before it and after every callback while it runs, the predicate is asked."""

    def __init__(self, sdk: NodeSdk, predicate: Callable[[], object]) -> None:
        self.sdk = sdk
        self.predicate = predicate
        made = sdk.invoke("abortController", {})
        self.controller: JsObject = made["controller"]
        self.signal: JsObject = made["signal"]
        self._aborted = False
        self._lock = threading.Lock()

    def poll(self) -> bool:
        """Ask the predicate; the first time it reports a stop, abort the signal. True once aborted."""
        with self._lock:
            if self._aborted:
                return True
            if not self.predicate():
                return False
            self._aborted = True
        self.controller.call("abort")
        return True

    @property
    def aborted(self) -> bool:
        """Whether the predicate has reported a stop (and the signal was aborted)."""
        return self._aborted

    def check(self) -> None:
        self.poll()

    def release(self) -> None:
        """Let Node forget the controller and its signal (once the call that used them is over)."""
        self.sdk.invoke("release", {"handles": [self.controller.handle, self.signal.handle]})

    @contextmanager
    def watching(self) -> Iterator[None]:
        self.poll()  # a predicate already reporting a stop aborts before the call starts
        with self.sdk.checkpoint(self.check):
            yield


def live_probe(sdk: NodeSdk, signal: Signal) -> Callable[[], bool]:
    """The ``cancelled`` probe for the signal Node passed: the predicate of the call that passed it is propagated
    first (also once that call is over: a probe kept for later still follows its call's predicate), then the signal
    is read."""
    check = sdk.active_checkpoint

    def cancelled() -> bool:
        if check is not None:
            check()
        if signal.handle is None:
            return signal.aborted
        return bool(sdk.invoke("get", {"target": JsObject(sdk, signal.handle), "name": "aborted"}))

    return cancelled


def cancelled_keyword(sdk: NodeSdk, declares: bool, signal: object) -> dict[str, Callable[[], bool]]:
    """The ``cancelled`` keyword for a callable that ``declares`` it, when Node passed a ``signal``: its live probe."""
    return {"cancelled": live_probe(sdk, signal)} if declares and isinstance(signal, Signal) else {}


def as_edited(value: Any) -> Any:
    """``value`` as plain JSON with the attribute assignments a callable made on it (``action.x = 1`` on a
    :class:`~conformance.node.sdk.broker.Data` sets an attribute, which reads back first, not the key)."""
    if isinstance(value, Mapping):
        merged = {**value, **(vars(value) if isinstance(value, Data) else {})}
        return {str(key): as_edited(item) for key, item in merged.items()}
    if isinstance(value, (list, tuple)):
        return [as_edited(item) for item in value]
    return value


def node_callback(
    sdk: NodeSdk, function: Callable[..., Any], arity: int, *, context_at: int | None = None, edits: bool = False
) -> Any:
    """``function`` as the Node SDK calls it: with its first ``arity`` arguments (Node's extra arguments dropped;
    its ``{signal}`` context is argument ``context_at``, by default the one after them), ``cancelled`` when it
    declares it and Node passed a signal, and with ``edits`` a Node function that writes the callable's changes
    back onto what Node passed (see the module docstring)."""
    declares = takes_cancelled(function)
    at = arity if context_at is None else context_at

    def called(*args: Any) -> Any:
        positional = args[:arity]
        context = args[at] if len(args) > at and isinstance(args[at], Mapping) else {}
        value = function(*positional, **cancelled_keyword(sdk, declares, context.get("signal")))
        if edits:
            return {"$reply": value, "$edits": [as_edited(argument) for argument in positional]}
        return value

    if not edits:
        return called
    wrapped = _bridge(sdk).call("editing", called)
    assert isinstance(wrapped, JsObject)
    return wrapped
