"""The driver under test as a check sees it: every call goes through the SDK toolset and is recorded on the way.

A check calls ``subject.call("click", target=ref, tab_id=None)``. The subject builds a one-member
``BrowserToolset`` (or ``AsyncBrowserToolset``) that approves every confirmation and URL, hands it a transparent
recording proxy of the driver, and executes a function call. One call therefore gives both views a certificate
needs: what the driver itself returned or raised (``outcome.raw`` / ``outcome.raised``) and what the SDK made of it
(``outcome.payload``, or ``outcome.sdk_error`` when the SDK would stop the run).
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from openai.lib.browser import AsyncBrowserToolset, BrowserToolset
from openai.types.responses import ResponseFunctionToolCall

from conformance.assertions import PreconditionFailed, not_implemented
from conformance.evidence import EvidenceLog
from conformance.flavours import Flavour
from conformance.harness.calls import CallRecord, RecordedCalls, RecordingProxy, naming_the_pending_call, on_driver
from conformance.harness.environment import Environment
from conformance.harness.errors import DriverTimeout, bounded, describe_error
from conformance.harness.loop import HarnessLoop
from conformance.harness.profile import DriverProfile, declares_cancelled
from conformance.harness.state_rules import broken_observation_rule, broken_rule
from conformance.members import BY_NAME

_call_ids = itertools.count(1)


# Every browser call goes through the SDK toolset, so every check that uses a subject also covers the clause that
# the SDK accepts what the driver returns; the subject fixture marks its check with it (pytest.mark.covers).
SDK_ACCEPTS_CLAUSE = "BR-SDK-001"


@dataclass
class CallOutcome(RecordedCalls):
    """The result of one member call through the SDK toolset."""

    arguments: dict[str, Any] = field(default_factory=dict)
    payload: dict[str, Any] | None = None
    image: dict[str, Any] | None = None
    sdk_error: BaseException | None = None

    @property
    def raised(self) -> BaseException | None:
        """What the member raised; blocked (see :meth:`blocked`) when the SDK stopped before calling it."""
        call = self.member_call
        if call is None and self.rejected_state():
            raise self.blocked()
        return call.raised if call else None

    @property
    def raw(self) -> Any:
        """What the member returned; blocked (see :meth:`blocked`) when the SDK stopped before calling it."""
        if self.member_call is None and self.rejected_state():
            raise self.blocked()
        return super().raw

    @property
    def ok(self) -> bool | None:
        """The SDK's ``ok`` for the call; blocked when the SDK rejected the call, so there is none to judge."""
        if self.sdk_error is not None:
            raise self.blocked()
        return None if self.payload is None else bool(self.payload.get("ok"))

    @property
    def error(self) -> str | None:
        if self.sdk_error is not None:
            raise self.blocked()
        return None if self.payload is None else self.payload.get("error")

    @property
    def states(self) -> list[Any]:
        """Every state() report the SDK read during the call, in order."""
        return [call.returned for call in self.calls if call.member == "state" and call.raised is None]

    def rejected_state(self) -> bool:
        """Whether the SDK stopped on a state() report: the last driver call was a state() that returned."""
        last = self.calls[-1] if self.calls else None
        return self.sdk_error is not None and last is not None and last.member == "state" and last.raised is None

    def describe(self) -> str:
        """What really happened to this call, in one bounded line, for a check's failure reason.

        Names the SDK rejecting state() before (or after) the member ran, the SDK refusing the call, the
        driver's exception (class and message), or what the member returned.
        """
        call = self.member_call
        if self.sdk_error is not None:
            if self.rejected_state():
                where = "after" if call is not None else f"before {self.member} ran"
                return f"the SDK rejected state() {where}: {describe_error(self.sdk_error)}"
            return f"the SDK rejected what the driver returned for {self.member}: {describe_error(self.sdk_error)}"
        if call is None:
            refused = f": {bounded(str(self.error))}" if self.error else ""
            return f"the SDK did not call {self.member} (it answered ok={self.ok}{refused})"
        if call.raised is not None:
            return f"{self.member} raised {describe_error(call.raised)}"
        return f"{self.member} returned {bounded(repr(call.returned), 240)}"

    def sdk_view(self) -> Any:
        """What the SDK made of the call: the output it would send the model, or why it would stop the run."""
        if self.sdk_error is not None:
            return f"the SDK would stop the run: {describe_error(self.sdk_error)}"
        return self.payload

    def blocked(self) -> PreconditionFailed:
        """The broken precondition behind an SDK rejection, for the check that meets it.

        Every judgement of a call stands on the SDK accepting it. A rejected state is blamed on the state rule it
        breaks (when the kit's own reading finds one), anything else on the SDK-accepts clause; either way the
        check's own clauses are blocked by it, and no reason claims the member returned nothing.
        """
        state = self.states[-1] if self.rejected_state() and self.states else None
        rule = broken_rule(state) if state is not None else None
        if rule is None and isinstance(state, Mapping) and "observation" in state:
            rule = broken_observation_rule(state["observation"])
        if rule is not None:
            return PreconditionFailed(rule.clause, f"{rule.detail}, so {self.describe()}")
        return PreconditionFailed(SDK_ACCEPTS_CLAUSE, self.describe())

    def expect_sdk_accepted(self) -> None:
        """Blame the SDK's rejection of the driver's result or state (the run would stop) as :meth:`blocked`."""
        if self.sdk_error is not None:
            raise self.blocked()


def _approve(*_args: object) -> bool:
    return True


async def _approve_async(*_args: object) -> bool:
    return True


class BrowserSubject:
    """A driver created by the factory for one check, with the ways a check may call it."""

    def __init__(self, driver: object, profile: DriverProfile, loop: HarnessLoop, env: Environment) -> None:
        self.driver = driver
        self.profile = profile
        self.loop = loop
        self.env = env
        # Every call this check makes, for the certificate's evidence should the check fail.
        self.evidence = EvidenceLog()
        # The profile of the run's first driver, made without hints: a member this one lacks but that one had
        # was dropped in answer to this check's hints.
        self.probed: DriverProfile | None = None

    @property
    def flavour(self) -> Flavour:
        return self.profile.flavour

    def implements(self, member: str) -> bool:
        return member == "list_tabs" or member in self.profile.implemented

    def require(self, *members: str) -> None:
        for member in members:
            if not self.implements(member):
                not_implemented(member)

    def run(self, value: object) -> Any:
        """Settle ``value`` on the harness loop when it is awaitable (under the driver deadline)."""
        return self.loop.resolve(value, what="the driver")

    def _on_driver(self, function: Callable[[], object], what: str) -> Any:
        """``function()`` where this driver's code runs (its worker thread or the loop), under the deadline."""
        return on_driver(self.loop, self.flavour, function, what)

    def state(self, *, cancelled: Callable[[], bool] | None = None) -> Any:
        """The driver's own state() report, called directly (``cancelled`` only for a state() that declares it)."""
        if cancelled is not None:
            return self._on_driver(lambda: self.driver.state(cancelled=cancelled), "state")  # type: ignore[attr-defined]
        return self._on_driver(lambda: self.driver.state(), "state")  # type: ignore[attr-defined]

    def call_direct(
        self, member: str, arguments: dict[str, Any], *, cancelled: Callable[[], bool] | None = None
    ) -> Any:
        """Call the driver's method without the SDK in between (``cancelled`` only if the method declares it)."""
        method = getattr(self.driver, member)
        record = CallRecord(member, arguments, cancelled is not None and declares_cancelled(method))
        self.evidence.add(RecordedCalls(member, [record]), arguments, lambda: "not called through the SDK")
        try:
            if record.cancelled_passed:
                record.returned = self._on_driver(lambda: method(arguments, cancelled=cancelled), member)
            else:
                record.returned = self._on_driver(lambda: method(arguments), member)
        except BaseException as error:
            record.raised = error
            raise
        finally:
            record.finished, record.ended = True, time.monotonic()
        return record.returned

    def call(
        self,
        member: str,
        *,
        cancelled: Callable[[], bool] | None = None,
        while_deciding: Callable[[], None] | None = None,
        **arguments: Any,
    ) -> CallOutcome:
        """Execute ``member`` with wire ``arguments`` through the SDK toolset; see the module docstring.

        ``while_deciding`` runs inside the approval callback, after the SDK's prior state read and before the
        member: what a page does while a person decides (it runs where the driver's code runs, so it must not
        call the driver).
        """
        self.require(member)
        if member not in BY_NAME:
            raise ValueError(f"{member!r} is not a browser member")
        outcome = CallOutcome(member, arguments=dict(arguments))
        self.evidence.add(outcome, outcome.arguments, outcome.sdk_view)
        try:
            parts = self.execute_in_sdk(outcome, cancelled, while_deciding)
        except DriverTimeout as timeout:
            raise naming_the_pending_call(timeout, outcome.calls, member) from None
        if parts is not None:
            outcome.payload = json.loads(parts[0]["text"])
            if len(parts) > 1:
                outcome.image = dict(parts[1])
        return outcome

    def execute_in_sdk(
        self, outcome: CallOutcome, cancelled: Callable[[], bool] | None, while_deciding: Callable[[], None] | None
    ) -> list[dict[str, Any]] | None:
        """Run ``outcome``'s call through a one-member SDK toolset, recording the driver calls it makes into
        ``outcome.calls``: the parts of the function call output, or ``None`` with ``outcome.sdk_error`` set when
        the SDK raised (rather than reporting ok: false) on an invalid report, which would stop a run."""
        member = outcome.member
        proxy: Any = RecordingProxy(self.driver, ("state", *self.profile.implemented), self.flavour, outcome.calls)
        call = ResponseFunctionToolCall(
            type="function_call",
            call_id=f"call_kit_{next(_call_ids)}",
            name=f"browser_{member}",
            arguments=json.dumps(outcome.arguments),
            status="completed",
        )
        confirm, confirm_async = _approve, _approve_async
        if while_deciding is not None:
            deciding = while_deciding

            def confirm(*_args: object) -> bool:
                deciding()
                return True

            async def confirm_async(*_args: object) -> bool:
                deciding()
                return True

        try:
            if self.flavour == "async":
                async_toolset = AsyncBrowserToolset(
                    proxy, members=[member], confirm=confirm_async, url_policy=_approve_async
                )
                output = self._on_driver(lambda: async_toolset.execute(call, cancelled=cancelled), member)
            else:
                toolset = BrowserToolset(proxy, members=[member], confirm=confirm, url_policy=_approve)
                output = self._on_driver(lambda: toolset.execute(call, cancelled=cancelled), member)
        except DriverTimeout:
            raise
        except Exception as error:
            outcome.sdk_error = error
            return None
        return list(output["output"])
