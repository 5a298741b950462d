"""The Node SDK's ``BrowserToolset`` behind the Python toolset's interface, over a Python probe driver.

The toolset checks build a toolset with :func:`conformance.rig.browser_toolset` and call ``execute``, ``tools`` and
``close``; for the ``node`` flavour that function returns a :class:`NodeBrowserToolset`: the npm ``openai``'s
toolset, built through the Node host over a Node object whose methods call the check's probe (each driver call,
and each ``confirm``/``url_policy`` answer, runs the same Python code and lands in the same probe log).

Names follow each SDK's idiom: Python's ``url_policy`` is Node's ``urlPolicy`` and so on (:data:`OPTION_NAMES`).
A driver method or option callable that takes ``cancelled`` receives, when Node passed an AbortSignal, the same
live probe of that very signal the computer toolset's callables get
(:func:`conformance.node.sdk.callbacks.cancelled_keyword`): a driver that polls it sees a cancellation that comes
while it works, and a signal that is not the run's never follows the run's predicate. Anything else a check reaches
for (Python internals, an option without a Node counterpart) makes the check "not checked", with the name, rather
than an error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from openai.lib.browser import BrowserError

from conformance.assertions import not_checked
from conformance.members import ALL_NAMES
from conformance.node.bridge import NodeError
from conformance.node.sdk.broker import JsObject, NodeArgumentError, NodeSdk, shared_sdk
from conformance.node.sdk.callbacks import cancelled_keyword, takes_cancelled
from conformance.node.sdk.execute import NodeExecuteOptions

OPTION_NAMES: Final = {
    "members": "members",
    "additional_members": "additionalMembers",
    "confirm": "confirm",
    "url_policy": "urlPolicy",
    "confirm_reads": "confirmReads",
}


def _unadapted(what: str) -> None:
    not_checked(f"on the Node SDK: this check uses {what}, which the kit has not mapped to the Node SDK yet")


def as_node_callable(sdk: NodeSdk, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` as Node calls it: Node appends an options object (``{signal}``), which becomes the ``cancelled``
    keyword (a live probe of that signal) where ``function`` declares one and is dropped otherwise. Unlike the
    computer toolset's callables, a browser driver's members take no fixed number of arguments (``state`` none, a
    member its action), so the options object is recognised by its shape rather than its position."""
    declares = takes_cancelled(function)

    def called(*args: Any) -> Any:
        options = args[-1] if args and isinstance(args[-1], Mapping) and set(args[-1]) <= {"signal"} else None
        positional = args[:-1] if options is not None else args
        signal = options.get("signal") if options is not None else None
        return function(*positional, **cancelled_keyword(sdk, declares, signal))

    return called


def driver_proxy(sdk: NodeSdk, driver: Any) -> JsObject:
    """A Node object with the driver's ``state`` and each browser member it implements."""
    methods: dict[str, Callable[..., Any]] = {}
    # close too, though no member: a check must see it if the SDK ever closes the caller's driver (TS-LIFE-003).
    for name in ("state", "close", *ALL_NAMES):
        method = getattr(driver, name, None)
        if name != "list_tabs" and callable(method):
            methods[name] = as_node_callable(sdk, method)
    return sdk.proxy(methods)


class NodeBrowserToolset:
    """The Node SDK's ``BrowserToolset`` with the Python one's ``execute``/``tools``/``close``."""

    def __init__(self, driver: Any, **options: Any) -> None:
        self.sdk = shared_sdk()
        # Python's per-call execute options: the toolset's onDiagnostic is a relay, and a call's cancellation
        # predicate is looked at after each callback (conformance.node.sdk.execute).
        self.execute_options = NodeExecuteOptions(self.sdk, options.pop("on_diagnostic", None))
        node_options: dict[str, Any] = {"onDiagnostic": self.execute_options.observer}
        for name, value in options.items():
            if name not in OPTION_NAMES:
                _unadapted(f"the toolset option {name}")
            node_options[OPTION_NAMES[name]] = as_node_callable(self.sdk, value) if callable(value) else value
        made = self.sdk.construct("BrowserToolset", driver_proxy(self.sdk, driver), node_options)
        assert isinstance(made, JsObject)
        self.toolset = made

    @property
    def tools(self) -> Any:
        return self.toolset.call("tools")

    def execute(self, call: Any, **options: Any) -> Any:
        with self.execute_options.applied(options) as node_options:
            return self._execute(call, node_options)

    def _execute(self, call: Any, node_options: dict[str, Any]) -> Any:
        try:
            result = self.toolset.call("execute", call, *([node_options] if node_options else []))
        except NodeError as error:
            if isinstance(error, BrowserError) or self.execute_options.aborted:
                # A cancelled call's abort error is the cancellation itself, not a refused call.
                raise
            # An unregistered or disabled call: refused before any driver work.
            raise NodeArgumentError.refusing(error) from None
        finally:
            self.sdk.settle()
        return result

    def close(self) -> Any:
        return self.toolset.call("close")

    def __getattr__(self, name: str) -> Any:
        _unadapted(f"the Python toolset's {name}")
