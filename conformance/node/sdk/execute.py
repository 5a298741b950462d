"""The Python toolset's per-call ``execute`` options, given to the Node SDK's ``BrowserToolset`` in its own terms.

The Python SDK's ``execute(call, cancelled=..., on_diagnostic=...)`` takes a cancellation predicate and a
diagnostic observer for that one call. The Node SDK's ``execute(call, {signal})`` takes an ``AbortSignal``, and
its diagnostic observer is the toolset's ``onDiagnostic`` option, fixed at construction (its ``executeWithStatus``,
which also takes one, is internal: the documents' declarations mark it so, and the kit checks the public API).

- ``on_diagnostic``: every Node toolset the kit builds gets a relay (``diagnosticRelay`` in ``sdk.mjs``) as its
  ``onDiagnostic``; for the length of one ``execute`` the relay points at that call's observer, otherwise at the
  toolset-level observer a check gave, or at nothing (the relay then returns without calling Python). A Python
  observer reaches the SDK as an async function, so one that raises is a rejected promise: the documented Node
  form of a failing observer ("promise failures are consumed").
- ``cancelled``: the call gets a fresh ``AbortController``'s signal
  (:class:`~conformance.node.sdk.callbacks.NodeCancellation`). The predicate is asked before the call, and again
  each time one of the toolset's callbacks (a driver method, ``state``, ``confirm``, ``urlPolicy``) returns,
  before Node sees the answer; the first time it reports true, the controller is aborted. The Python SDK asks its
  predicate around each dispatch step, and the Node SDK looks at its signal after each await, so both see a
  cancellation at the same step boundaries.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Final

from conformance.node.sdk.broker import JsObject, NodeSdk
from conformance.node.sdk.callbacks import NodeCancellation

EXECUTE_OPTIONS: Final = frozenset({"cancelled", "on_diagnostic"})


class NodeExecuteOptions:
    """One Node toolset's relay and per-call cancellation; ``applied`` gives one ``execute`` its options."""

    def __init__(self, sdk: NodeSdk, toolset_observer: Callable[..., Any] | None = None) -> None:
        self.sdk = sdk
        made = sdk.invoke("diagnosticRelay", {})
        self.relay: JsObject = made["relay"]
        # The Node toolset's onDiagnostic option.
        self.observer: JsObject = made["observe"]
        self.toolset_observer = toolset_observer
        if toolset_observer is not None:
            self.relay.call("point", toolset_observer)
        self._cancellation: NodeCancellation | None = None

    @property
    def aborted(self) -> bool:
        """Whether the running call's signal was aborted (its predicate reported true)."""
        return self._cancellation is not None and self._cancellation.aborted

    @contextmanager
    def applied(self, options: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
        """The Node ``execute`` options for one call's Python ``options`` (an empty dict for none)."""
        unknown = set(options) - EXECUTE_OPTIONS
        if unknown:
            # As the Python toolset's keyword-only execute refuses them.
            raise TypeError(f"execute got unknown options {sorted(unknown)}; it takes {sorted(EXECUTE_OPTIONS)}")
        predicate, observer = options.get("cancelled"), options.get("on_diagnostic")
        if predicate is not None and not callable(predicate):
            raise ValueError(f"cancelled must be a predicate (a callable), got {type(predicate).__name__}")
        if observer is not None and not callable(observer):
            raise ValueError(f"on_diagnostic must be a callable observer, got {type(observer).__name__}")
        node_options: dict[str, Any] = {}
        with contextlib.ExitStack() as stack:
            if predicate is not None:
                self._cancellation = cancellation = NodeCancellation(self.sdk, predicate)
                stack.callback(cancellation.release)
                stack.callback(setattr, self, "_cancellation", None)
                node_options["signal"] = cancellation.signal
                stack.enter_context(cancellation.watching())
            if observer is not None:
                self.relay.call("point", observer)
                stack.callback(self.relay.call, "point", self.toolset_observer)
            yield node_options
