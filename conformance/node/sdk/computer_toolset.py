"""The Node SDK's ``ComputerToolset`` behind the Python toolset's interface, over a Python probe driver.

The computer checks build a toolset with :func:`conformance.rig.computer_toolset` and call ``execute`` and
``close``; for the ``node`` flavour that function returns a :class:`NodeComputerToolset`: the npm ``openai``'s
toolset, built through the Node host over a Node object whose nine methods (and ``close``, so a check sees if the
SDK ever closes the caller's driver) call the check's probe.

``execute``'s options take their Node names (``approve_safety_checks`` is ``approveSafetyChecks`` and so on); the
``cancelled`` predicate becomes the AbortSignal Node takes (:class:`~conformance.node.sdk.callbacks.NodeCancellation`),
and the approval callbacks may edit what they receive in place, as a JavaScript callback can
(:func:`~conformance.node.sdk.callbacks.node_callback`). ``run``, the computer-only loop, takes the same options
(and ``max_steps``) on a Node client. Anything else a check reaches for (Python internals) makes the check "not
checked", with the name, rather than an error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Final

from conformance.assertions import not_checked
from conformance.members import COMPUTER_METHODS
from conformance.node.bridge import NodeError
from conformance.node.sdk.broker import RUN_SECONDS, JsObject, NodeArgumentError, NodeSdk, shared_sdk
from conformance.node.sdk.callbacks import NodeCancellation, node_callback

# Python execute option -> (Node option, how many leading arguments the Python callable takes, where Node's
# {signal} context is, whether edits cross back). beforeAction also gets the call, before its context.
EXECUTE_OPTIONS: Final[dict[str, tuple[str, int, int, bool]]] = {
    "approve_safety_checks": ("approveSafetyChecks", 1, 1, True),
    "before_action": ("beforeAction", 1, 2, True),
    "on_diagnostic": ("onDiagnostic", 1, 1, False),
}
# run()'s own options besides execute's (ComputerRunOptions).
RUN_OPTIONS: Final = {"max_steps": "maxSteps"}


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

    def _called(
        self, method: str, first: Any, second: Any, cancelled: Callable[[], object] | None, **options: Any
    ) -> Any:
        """``toolset[method](first, second?, options)`` with the Python options under their Node names (run's
        ``max_steps`` is ``maxSteps``) and ``cancelled`` as the call's AbortSignal."""
        node_options: dict[str, Any] = {}
        for name, value in options.items():
            if method == "run" and name in RUN_OPTIONS:
                node_options[RUN_OPTIONS[name]] = value
                continue
            if name not in EXECUTE_OPTIONS:
                _unadapted(f"the {method} option {name}")
            if value is None:
                continue
            node_name, arity, context_at, edits = EXECUTE_OPTIONS[name]
            node_options[node_name] = node_callback(self.sdk, value, arity, context_at=context_at, edits=edits)
        cancellation = None if cancelled is None else NodeCancellation(self.sdk, cancelled)
        if cancellation is not None:
            node_options["signal"] = cancellation.signal
        arguments = [first] if second is None else [first, second]
        with cancellation.watching() if cancellation is not None else contextlib.nullcontext():
            try:
                return self.toolset.call(method, *arguments, node_options, timeout=RUN_SECONDS)
            finally:
                self.sdk.settle()

    def execute(self, call: Any, *, cancelled: Callable[[], object] | None = None, **options: Any) -> Any:
        return self._called("execute", call, None, cancelled, **options)

    def run(self, client: Any, params: Any, *, cancelled: Callable[[], object] | None = None, **options: Any) -> Any:
        """The computer-only loop, ``run(client, params, options)``, on a Node client
        (:func:`conformance.rig.cassette_client` with the ``node`` flavour); the loop's error is raised as the
        :class:`~conformance.node.bridge.NodeError` it crossed as."""
        return self._called("run", client, params, cancelled, **options)

    def close(self) -> Any:
        try:
            return self.toolset.call("close")
        finally:
            self.sdk.settle()  # whatever close() called back (it must not close the driver) is in the log first

    def __getattr__(self, name: str) -> Any:
        _unadapted(f"the Python toolset's {name}")
