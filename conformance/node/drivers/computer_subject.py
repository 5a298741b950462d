"""The computer subject of a JavaScript driver: actions go through the Node SDK's ``ComputerToolset``.

:class:`NodeComputerSubject` keeps :class:`~conformance.harness.computer_subject.ComputerSubject`'s interface, so
every computer check runs unchanged. ``call`` and ``execute`` ask the Node host to run one ``computer_call``
through a ``ComputerToolset`` of the driver's npm ``openai`` over a recording proxy of the driver; the host
reports each driver method the toolset reached as it happens, recorded here exactly as the Python proxy records
them. The check's own ``before_action`` and ``approve_safety_checks`` callbacks stay in Python: the toolset's
callback asks the host, the host asks this side, and the answer goes back (:meth:`NodeComputerSubject.execute`).

The Node SDK signals its own refusals with ``OpenAIError`` and cancellation with the signal's reason, where the
Python SDK raises ``ComputerUseError`` for both; both come back here as :class:`NodeComputerUseError`, a
``ComputerUseError``, so the checks' "the SDK stopped the call" holds for both languages. What the driver itself
threw passes through unchanged, as in Python.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from openai.lib.computer import ComputerUseError
from openai.types.responses import ResponseComputerToolCall
from pydantic import TypeAdapter

from conformance.harness.calls import CallRecord, naming_the_pending_call
from conformance.harness.computer_environment import ComputerEnvironment
from conformance.harness.computer_subject import ActionOutcome, ComputerAction, ComputerSubject
from conformance.harness.errors import DriverTimeout, describe_error
from conformance.harness.loop import HarnessLoop
from conformance.node.bridge import NodeError, rebuild_error
from conformance.node.drivers.computer_driver import NodeComputerDriverView, action_json
from conformance.node.drivers.driver import record_driver_call

_call_ids = itertools.count(1)
_actions: TypeAdapter[ComputerAction] = TypeAdapter(ComputerAction)


class NodeComputerUseError(ComputerUseError, NodeError):
    """The Node SDK's computer toolset stopped a call (a refusal or a cancellation), seen as ``ComputerUseError``."""


def sdk_stop(described: Mapping[str, Any]) -> NodeComputerUseError:
    """The Node toolset's own error, named by its JavaScript class so a certificate reads naturally."""
    error = NodeComputerUseError(f"{described.get('class', 'Error')}: {described.get('message', '')}")
    error.js_class = str(described.get("class") or "Error")
    return error


class NodeComputerSubject(ComputerSubject):
    """A JavaScript computer driver made by its factory for one check, called through the Node host."""

    driver: NodeComputerDriverView

    def __init__(self, driver: NodeComputerDriverView, loop: HarnessLoop, env: ComputerEnvironment) -> None:
        super().__init__(driver, loop, env)
        # The Node SDK awaits every method, whether it returns a value or a promise: the async kind.
        self.flavour = "async"

    def _on_driver(self, function: Callable[[], object], what: str) -> Any:
        # The bridge enforces the driver deadline itself (see NodeBrowserSubject).
        return function()

    def toolset_refusal(self) -> str | None:
        refused = self.driver.host.request(
            "computer_accepts", timeout=self.loop.timeout, what="the toolset's constructor", handle=self.driver.handle
        )
        if refused is None:
            return None
        return f"ComputerToolset (npm openai) rejected the driver: {refused.get('class')}: {refused.get('message')}"

    def call(self, action: ComputerAction) -> ActionOutcome:
        """Execute one action through the Node SDK's computer toolset; see the module docstring."""
        outcome = ActionOutcome(action.type)
        self.evidence.add(outcome, action.model_dump(exclude_none=True), outcome.sdk_view)
        computer_call = {
            "type": "computer_call",
            "id": f"cu_kit_{next(_call_ids)}",
            "call_id": f"call_kit_{next(_call_ids)}",
            "status": "completed",
            "actions": [action_json(action)],
            "pending_safety_checks": [],
        }
        try:
            answer = self._execute(computer_call, outcome.calls, {})
        except DriverTimeout as timeout:
            raise naming_the_pending_call(timeout, outcome.calls, action.type) from None
        if "refused" in answer:
            outcome.toolset_refused = True
            outcome.sdk_error = sdk_stop(answer["refused"])
        elif "error" in answer:
            outcome.sdk_error = (
                rebuild_error(answer["error"]) if answer.get("from_driver") else sdk_stop(answer["error"])
            )
        else:
            outcome.output = dict(answer["output"])
        return outcome

    def execute(self, computer_call: ResponseComputerToolCall, *, driver: object = None, **options: Any) -> Any:
        """Run a whole ``computer_call`` through the Node SDK's toolset; ``options`` as for the Python one.

        ``approve_safety_checks`` and ``before_action`` are Python callables the toolset reaches through the host;
        ``cancelled`` becomes the toolset's AbortSignal. The output comes back as a dict; a refusal or a
        cancellation raises :class:`NodeComputerUseError`, the driver's own error is raised as the driver threw it.
        """
        if driver is not None:
            raise ValueError("a JavaScript driver is executed as itself; there is no proxy to pass")
        calls: list[CallRecord] = []
        answer = self._execute(computer_call.model_dump(exclude_none=True), calls, options)
        if "refused" in answer:
            raise sdk_stop(answer["refused"])
        if "error" in answer:
            raise rebuild_error(answer["error"]) if answer.get("from_driver") else sdk_stop(answer["error"])
        return dict(answer["output"])

    def _execute(self, computer_call: dict[str, Any], calls: list[CallRecord], options: dict[str, Any]) -> Any:
        unknown = set(options) - {"approve_safety_checks", "before_action", "cancelled"}
        if unknown:
            raise TypeError(f"unsupported toolset options {sorted(unknown)}")
        callbacks: dict[str, Callable[[Any], Any]] = {
            name: options[name] for name in ("approve_safety_checks", "before_action") if options.get(name)
        }
        cancelled: Callable[[], bool] | None = options.get("cancelled")
        host = self.driver.host
        running: list[CallRecord] = []

        def on_event(event: dict[str, Any]) -> None:
            if event["event"] == "ask":
                answer = self._answer(callbacks[str(event["callback"])], str(event["callback"]), event.get("value"))
                # A callback may have made the run cancelled: the toolset must see that before the callback returns.
                if cancelled is not None and cancelled():
                    host.notify("abort", call=event["id"])
                host.notify("computer_answer", ask=event["ask"], **answer)
                return
            record_driver_call(event, running, calls)

        return host.request(
            "computer_execute",
            timeout=self.loop.timeout,
            what="the computer toolset",
            on_event=on_event,
            cancelled=cancelled,
            handle=self.driver.handle,
            call=computer_call,
            callbacks=sorted(callbacks),
        )

    @staticmethod
    def _answer(callback: Callable[[Any], Any], name: str, value: Any) -> dict[str, Any]:
        """Run the check's callback on what the Node toolset passed, as the Python toolset would pass it."""
        try:
            argument: object = (
                _actions.validate_python(value)
                if name == "before_action"
                else ResponseComputerToolCall.model_validate(value)
            )
            result = callback(argument)
        except Exception as error:
            return {"error": f"the check's {name} raised {describe_error(error)}"}
        # Only JSON crosses: an exotic return value is refused the way the toolset refuses anything but true.
        return {"value": result if isinstance(result, bool | int | float | str) or result is None else repr(result)}
