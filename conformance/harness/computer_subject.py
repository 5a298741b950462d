"""The computer driver under test as a check sees it: actions go through the SDK's computer toolset, recorded.

``subject.call(action)`` wraps one action in a completed ``computer_call`` and executes it with the toolset of
the driver's flavour (``ComputerToolset`` or ``AsyncComputerToolset``) over a recording proxy of the driver, the
way :meth:`conformance.harness.subject.BrowserSubject.call` does for browser members. One call gives both views:
what the driver's method returned or raised (``outcome.raw`` / ``outcome.raised``) and what the SDK made of the
whole call, its ``computer_call_output`` (``outcome.output``) or its refusal (``outcome.sdk_error``).

Driver contract checks that the SDK would mask (it checks ``cancelled`` itself before every method, so a driver's
own handling of it can only be seen by calling the method) use :meth:`ComputerSubject.call_direct`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openai import AsyncComputerToolset, ComputerToolset
from openai.types.responses import ResponseComputerToolCall
from openai.types.responses import computer_action as actions

from conformance.assertions import expect
from conformance.evidence import EvidenceLog
from conformance.flavours import Flavour
from conformance.harness.calls import RecordedCalls, RecordingProxy, naming_the_pending_call, on_driver
from conformance.harness.computer_environment import ComputerEnvironment
from conformance.harness.errors import DriverSetupError, DriverTimeout, bounded, describe_error
from conformance.harness.loop import HarnessLoop
from conformance.harness.profile import declares_cancelled, flavour_of, method_flavour
from conformance.members import COMPUTER_METHODS

_call_ids = itertools.count(1)
# The SDK turns what screenshot() returned into the call's output; its refusal is a fault of the screenshot.
SCREENSHOT_ACCEPTED_CLAUSE = "CO-SHOT-001"
# The SDK's computer toolsets refuse a driver whose nine methods are not all there, in one flavour.
TOOLSET_ACCEPTS_CLAUSE = "CO-SHAPE-002"

ComputerAction = (
    actions.Click
    | actions.DoubleClick
    | actions.Drag
    | actions.Keypress
    | actions.Move
    | actions.Screenshot
    | actions.Scroll
    | actions.Type
    | actions.Wait
)


@dataclass
class ActionOutcome(RecordedCalls):
    """The result of one action executed through the SDK's computer toolset."""

    output: dict[str, Any] | None = None
    sdk_error: BaseException | None = None
    # The toolset would not take the driver at all (constructor refused it): nothing was called.
    toolset_refused: bool = False

    @property
    def raised(self) -> BaseException | None:
        """What the driver's own method raised, if it did (the SDK's own refusals are ``sdk_error``)."""
        return next((call.raised for call in self.calls if call.raised is not None), None)

    def describe(self) -> str:
        """What really happened to this action, in one bounded line, for a check's failure reason."""
        if self.toolset_refused:
            return f"the SDK's computer toolset refused the driver: {describe_error(self.sdk_error or Exception())}"
        if self.raised is not None:
            culprit = next(call.member for call in self.calls if call.raised is not None)
            return f"{culprit} raised {describe_error(self.raised)}"
        if self.sdk_error is not None:
            return f"the SDK rejected the call's result: {describe_error(self.sdk_error)}"
        return f"{self.member} returned {bounded(repr(self.raw), 240)}"

    def sdk_view(self) -> Any:
        """What the SDK made of the action: the computer_call_output it would send, or why it would stop."""
        if self.sdk_error is not None:
            return f"the SDK would stop the run: {describe_error(self.sdk_error)}"
        return self.output


def _as_async(callback: Callable[[Any], Any]) -> Callable[[Any], Any]:
    async def wrapped(value: Any) -> Any:
        return callback(value)

    return wrapped


class ComputerSubject:
    """A computer driver made by the factory for one check, with the ways a check may call it."""

    def __init__(self, driver: object, loop: HarnessLoop, env: ComputerEnvironment) -> None:
        # Any: checks hand the driver to the SDK's toolsets, whose driver protocols a plain object cannot name.
        self.driver: Any = driver
        self.loop = loop
        self.env = env
        # Every action this check makes, for the certificate's evidence should the check fail.
        self.evidence = EvidenceLog()
        try:
            self.flavour: Flavour = flavour_of(driver, self._present(), "Computer")
        except DriverSetupError:
            # A driver mixing flavours is still certified: the toolset of its click's flavour refuses it, which
            # fails the shape clause (CO-SHAPE-002) instead of stopping the run as a usage error.
            self.flavour = method_flavour(getattr(driver, "click", None)) or "sync"

    def takes_cancelled(self, member: str) -> bool:
        """Whether the driver's ``member`` names the ``cancelled`` keyword (the SDK passes it only then)."""
        method = getattr(self.driver, member, None)
        return callable(method) and declares_cancelled(method)

    def _on_driver(self, function: Callable[[], object], what: str) -> Any:
        return on_driver(self.loop, self.flavour, function, what)

    def call_direct(self, member: str, action: object = None, *, cancelled: Callable[[], bool] | None = None) -> Any:
        """Call the driver's method without the SDK in between (``cancelled`` only if the method declares it)."""
        method = getattr(self.driver, member)
        arguments = () if member == "screenshot" else (action,)
        if cancelled is not None and declares_cancelled(method):
            return self._on_driver(lambda: method(*arguments, cancelled=cancelled), member)
        return self._on_driver(lambda: method(*arguments), member)

    def call(self, action: ComputerAction) -> ActionOutcome:
        """Execute one action through the SDK's computer toolset; see the module docstring."""
        outcome = ActionOutcome(action.type)
        self.evidence.add(outcome, action.model_dump(exclude_none=True), outcome.sdk_view)
        proxy: Any = RecordingProxy(self.driver, self._present(), self.flavour, outcome.calls)
        computer_call = ResponseComputerToolCall(
            type="computer_call",
            id=f"cu_kit_{next(_call_ids)}",
            call_id=f"call_kit_{next(_call_ids)}",
            status="completed",
            actions=[action],
            pending_safety_checks=[],
        )
        try:
            outcome.output = dict(self.execute(computer_call, driver=proxy))
        except DriverTimeout as timeout:
            raise naming_the_pending_call(timeout, outcome.calls, action.type) from None
        except Exception as error:
            # A ValueError before any driver call is the toolset's constructor refusing the driver's shape.
            outcome.toolset_refused = isinstance(error, ValueError) and not outcome.calls
            outcome.sdk_error = error
        return outcome

    def act(self, action: ComputerAction) -> Any:
        """Perform ``action`` through the toolset and return what the driver's method returned.

        The driver's own exception is raised as is (a check may expect it); the SDK refusing the driver blames
        the shape clause, and the SDK refusing the screenshot that ends every call blames the screenshot clause.
        """
        outcome = self.call(action)
        if outcome.raised is not None:
            raise outcome.raised
        expect(not outcome.toolset_refused, TOOLSET_ACCEPTS_CLAUSE, outcome.describe())
        expect(outcome.sdk_error is None, SCREENSHOT_ACCEPTED_CLAUSE, outcome.describe())
        return outcome.raw

    def screenshot(self) -> Any:
        """The driver's screenshot, taken through the toolset (what screenshot() itself returned)."""
        return self.act(actions.Screenshot(type="screenshot"))

    def execute(self, computer_call: ResponseComputerToolCall, *, driver: object = None, **options: Any) -> Any:
        """Run a whole ``computer_call`` through the toolset matching the driver's flavour, on the driver's thread.

        ``options`` are the toolset's ``execute`` keywords (plain callbacks; they are wrapped for the async one).
        """
        target: Any = self.driver if driver is None else driver
        if self.flavour == "async":
            async_options: dict[str, Any] = {
                name: value if name == "cancelled" else _as_async(value) for name, value in options.items()
            }

            async def run_async() -> Any:
                toolset = AsyncComputerToolset(target)
                try:
                    return await toolset.execute(computer_call, **async_options)
                finally:
                    toolset.close()

            return self.loop.run_async(run_async, what="the computer toolset")

        def run() -> Any:
            toolset = ComputerToolset(target)
            try:
                return toolset.execute(computer_call, **options)
            finally:
                toolset.close()

        return self._on_driver(run, "the computer toolset")

    def toolset_refusal(self) -> str | None:
        """Why the SDK's computer toolset of the driver's flavour would not take the driver, or None if it would."""
        toolset_type = AsyncComputerToolset if self.flavour == "async" else ComputerToolset
        try:
            toolset = toolset_type(self.driver)
        except ValueError as error:
            return f"{toolset_type.__name__} rejected the driver: {error}"
        toolset.close()
        return None

    def _present(self) -> list[str]:
        return [name for name in COMPUTER_METHODS if callable(getattr(self.driver, name, None))]
