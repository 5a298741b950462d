"""The browser subject of a JavaScript driver: the SDK half of each call goes through the Node SDK.

:class:`NodeBrowserSubject` keeps :class:`~conformance.harness.subject.BrowserSubject`'s interface, so every browser
check runs unchanged. ``call`` asks the Node host to build a one-member ``BrowserToolset`` from the driver's npm
``openai`` (the implementation the driver really runs under), approving every confirmation and URL, and to execute
one function call; the host reports each driver method the toolset reached as it happens, and this side records
them as :class:`~conformance.harness.calls.CallRecord` exactly as the Python recording proxy does. ``call_direct``
and ``state`` call the driver through its :class:`~conformance.node.drivers.driver.NodeDriverView`.

The bridge enforces the driver deadline itself, so calls run on the calling thread rather than the harness loop's
worker (whose own deadline would race the bridge's).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from conformance.harness.calls import CallRecord
from conformance.harness.environment import Environment
from conformance.harness.loop import HarnessLoop
from conformance.harness.profile import DriverProfile
from conformance.harness.subject import BrowserSubject, CallOutcome
from conformance.node.bridge import rebuild_error
from conformance.node.drivers.driver import NodeDriverView, record_driver_call

_call_ids = itertools.count(1)


class NodeBrowserSubject(BrowserSubject):
    """A JavaScript driver made by its factory for one check, called through the Node host."""

    driver: NodeDriverView

    def __init__(self, driver: NodeDriverView, profile: DriverProfile, loop: HarnessLoop, env: Environment) -> None:
        super().__init__(driver, profile, loop, env)

    def _on_driver(self, function: Callable[[], object], what: str) -> Any:
        return function()

    def execute_in_sdk(
        self, outcome: CallOutcome, cancelled: Callable[[], bool] | None, while_deciding: Callable[[], None] | None
    ) -> list[dict[str, Any]] | None:
        """Run ``outcome``'s call through the Node SDK's one-member ``BrowserToolset``; see the module docstring."""
        running: list[CallRecord] = []
        deciding_failed: list[BaseException] = []

        def on_event(event: dict[str, Any]) -> None:
            if event.get("event") == "deciding" and while_deciding is not None:
                # The Node confirm waits for this: run what happens while a person decides, then let it approve.
                # (This runs on the bridge's reader thread, so a failure is kept for the caller, not raised here.)
                try:
                    while_deciding()
                except BaseException as error:
                    deciding_failed.append(error)
                finally:
                    self.driver.host.notify("decided", call=event["id"])
                return
            record_driver_call(event, running, outcome.calls)

        answer = self.driver.host.request(
            "execute",
            timeout=self.loop.timeout,
            what=outcome.member,
            on_event=on_event,
            cancelled=cancelled,
            handle=self.driver.handle,
            member=outcome.member,
            args=outcome.arguments,
            call_id=f"call_kit_{next(_call_ids)}",
            deciding=while_deciding is not None,
        )
        if deciding_failed:
            raise deciding_failed[0]
        if "sdk_error" in answer:
            outcome.sdk_error = rebuild_error(answer["sdk_error"])
            return None
        return list(answer["output"]["output"])
