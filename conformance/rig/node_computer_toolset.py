"""The Node SDK's ``ComputerToolset`` behind the Python toolset's interface, over a Python probe driver.

The computer checks build a toolset with :func:`conformance.rig.computer_toolset` and call ``execute`` and
``close``; for the ``node`` flavour that function returns a :class:`NodeComputerToolset`: the npm ``openai``'s
toolset, built through the Node host over a Node object whose nine methods (and ``close``, so a check sees if the
SDK ever closes the caller's driver) call the check's probe.

``execute``'s options take their Node names (``approve_safety_checks`` is ``approveSafetyChecks`` and so on); the
``cancelled`` predicate becomes the AbortSignal Node takes (:class:`~conformance.rig.node_callbacks.NodeCancellation`),
and the approval callbacks may edit what they receive in place, as a JavaScript callback can
(:func:`~conformance.rig.node_callbacks.node_callback`). Anything else a check reaches for (``run``, Python
internals) makes the check "not checked", with the name, rather than an error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Final

from conformance.assertions import not_checked
from conformance.harness.node.bridge import NodeError
from conformance.members import COMPUTER_METHODS
from conformance.rig.node import JsObject, NodeArgumentError, NodeSdk, shared_sdk
from conformance.rig.node_callbacks import NodeCancellation, node_callback

# Python execute option -> (Node option, how many leading arguments the Python callable takes, where Node's
# {signal} context is, whether edits cross back). beforeAction also gets the call, before its context.
EXECUTE_OPTIONS: Final[dict[str, tuple[str, int, int, bool]]] = {
    "approve_safety_checks": ("approveSafetyChecks", 1, 1, True),
    "before_action": ("beforeAction", 1, 2, True),
    "on_diagnostic": ("onDiagnostic", 1, 1, False),
}


def _unadapted(what: str) -> None:
    not_checked(f"on the Node SDK: this check uses {what}, which the kit has not mapped to the Node SDK yet")


class NodeComputerToolset:
    """The Node SDK's ``ComputerToolset`` with the Python one's ``execute``/``close``."""

    def __init__(self, driver: Any) -> None:
        self.sdk: NodeSdk = shared_sdk()
        methods: dict[str, Callable[..., Any]] = {}
        for name in (*COMPUTER_METHODS, "close"):
            method = getattr(driver, name, None)
            if callable(method):
                # screenshot() and close() take no action; the others take the action, then Node's {signal}.
                arity = 0 if name in ("screenshot", "close") else 1
                methods[name] = node_callback(self.sdk, method, arity)
        try:
            made = self.sdk.construct("ComputerToolset", self.sdk.proxy(methods))
        except NodeError as error:
            raise NodeArgumentError.refusing(error) from None
        assert isinstance(made, JsObject)
        self.toolset = made

    def execute(self, call: Any, *, cancelled: Callable[[], object] | None = None, **options: Any) -> Any:
        node_options: dict[str, Any] = {}
        for name, value in options.items():
            if name not in EXECUTE_OPTIONS:
                _unadapted(f"the execute option {name}")
            if value is None:
                continue
            node_name, arity, context_at, edits = EXECUTE_OPTIONS[name]
            node_options[node_name] = node_callback(self.sdk, value, arity, context_at=context_at, edits=edits)
        cancellation = None if cancelled is None else NodeCancellation(self.sdk, cancelled)
        if cancellation is not None:
            node_options["signal"] = cancellation.signal
        with cancellation.watching() if cancellation is not None else contextlib.nullcontext():
            try:
                return self.toolset.call("execute", call, node_options)
            finally:
                self.sdk.settle()

    def close(self) -> Any:
        try:
            return self.toolset.call("close")
        finally:
            self.sdk.settle()  # whatever close() called back (it must not close the driver) is in the log first

    def __getattr__(self, name: str) -> Any:
        _unadapted(f"the Python toolset's {name}")
