"""Python callables as the Node SDK calls them: cancellation and in-place edits crossing the bridge.

Two things differ between the SDKs' callbacks, and the kit's checks need both to mean the same on either side:

- Cancellation. The Python SDK polls a ``cancelled`` predicate and hands callables that declare ``cancelled`` a
  probe; the Node SDK takes an ``AbortSignal`` and hands every callback and driver method ``{signal}``.
  :class:`NodeCancellation` turns a check's predicate into an AbortController the kit aborts as soon as the
  predicate reports a stop: the broker asks it after every Python callback, before Node sees that callback's
  answer (:meth:`~conformance.rig.node.NodeSdk.poll`; only Python code run by a callback can change what the
  predicate says). A callable that declares ``cancelled`` gets :func:`live_probe` of the signal Node passed it:
  whether *that* signal is aborted now. So a check still sees whether the SDK passed the run's own signal: an
  unrelated one never follows the predicate.
- Edits. A JavaScript callback receives the SDK's object itself and may change it in place; a Python callable
  receives a copy. :func:`node_callback` with ``edits=True`` sends the callable's changes back, and the broker
  writes them onto the very objects the SDK passed (``editingCallback`` in sdk.mjs), so a check that a callback
  cannot change the action is a real check of the Node SDK, not of the bridge's copying.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

from conformance.rig.node import Data, JsObject, NodeSdk, Signal


def takes_cancelled(function: Callable[..., Any]) -> bool:
    try:
        return "cancelled" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


class NodeCancellation:
    """A polled Python ``cancelled`` predicate as a Node AbortSignal (``signal``: a handle to pass as an option).

    Use it as a context manager around the Node call: inside, the broker polls it after every callback."""

    def __init__(self, sdk: NodeSdk, predicate: Callable[[], object]) -> None:
        self.sdk = sdk
        self.predicate = predicate
        controller = sdk.invoke("abortController", {})
        assert isinstance(controller, JsObject)
        signal = sdk.invoke("signalOf", {"controller": controller})
        assert isinstance(signal, JsObject)
        self.controller, self.signal = controller, signal
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

    def __enter__(self) -> NodeCancellation:
        self.poll()  # a predicate already reporting a stop aborts before the call starts
        self.sdk.add_poller(self.poll)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.sdk.remove_poller(self.poll)


def live_probe(sdk: NodeSdk, signal: Signal) -> Callable[[], bool]:
    """The ``cancelled`` probe for the signal Node passed: the predicates of the call that passed it are propagated
    first (also once that call is over: a probe kept for later still follows its run's predicate), then the signal
    is read."""
    pollers = sdk.pollers()

    def cancelled() -> bool:
        sdk.poll(pollers)
        if signal.handle is None:
            return signal.aborted
        return bool(sdk.invoke("get", {"target": JsObject(sdk, signal.handle), "name": "aborted"}))

    return cancelled


def as_edited(value: Any) -> Any:
    """``value`` as plain JSON with the attribute assignments a callable made on it (``action.x = 1`` on a
    :class:`~conformance.rig.node.Data` sets an attribute, which reads back first, not the key)."""
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
        signal = context.get("signal")
        keywords = {"cancelled": live_probe(sdk, signal)} if declares and isinstance(signal, Signal) else {}
        value = function(*positional, **keywords)
        if edits:
            return {"$reply": value, "$edits": [as_edited(argument) for argument in positional]}
        return value

    if not edits:
        return called
    wrapped = sdk.invoke("editingCallback", {"fn": called})
    assert isinstance(wrapped, JsObject)
    return wrapped
