"""One explored driver session: a subject from the harness, the model of its tabs, and the ways steps use both.

Every member call goes through :meth:`BrowserSubject.call`, so the SDK stands between the kit and the driver as it
does in every check (a JavaScript driver's calls go through the Node SDK the same way), and each step makes
exactly one such call: the evidence of a replayed sequence lists one call per numbered step. State is read
directly after each step, which is not logged as a step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from conformance.assertions import ClauseViolation, precondition_failed, violation
from conformance.contracts.browser._effects import start_page, start_page_shown
from conformance.contracts.browser._expectations import expect_done, expect_refused
from conformance.harness.browser import BrowserHarness
from conformance.harness.environment import DriverHints, Effect, Environment
from conformance.harness.errors import describe_error
from conformance.harness.state_rules import broken_rule
from conformance.harness.subject import BrowserSubject, CallOutcome

from .model import SessionModel, judge_observation, judge_state_rules

# How long a page a step loaded gets to record its load (the documents leave when navigate returns to the driver,
# so a driver may return first; the checks give a load five seconds too).
LOAD_SECONDS = 5.0


class CallFailed(ClauseViolation):
    """A step's own member call raised: the member failed, whatever the sequence before it did."""

    def __init__(self, clause_id: str, detail: str, member: str = "") -> None:
        super().__init__(clause_id, detail)
        self.member = member


class ExploredSession:
    """A fresh driver (from the harness, like any check's) explored one step at a time against its model."""

    def __init__(self, subject: BrowserSubject) -> None:
        self.subject = subject
        self.model: SessionModel | None = None

    @property
    def env(self) -> Environment:
        return self.subject.env

    @property
    def tabs(self) -> SessionModel:
        assert self.model is not None, "start() first"
        return self.model

    def start(self) -> None:
        """Read the session's first state: the ground every sequence stands on.

        A driver that never showed its start page, or whose first state already breaks a state rule, is not
        explored: the clause it breaks blocks the exploration (its own checks blame it), as it blocks every check.
        """
        start_page_shown(self.subject)
        state = self.subject.state()
        rule = broken_rule(state)
        if rule is not None:
            precondition_failed(rule.clause, f"the driver's first state: {rule.detail}")
        if not isinstance(state, Mapping) or not state["tabs"]:
            precondition_failed("BR-STATE-005", "the driver's first state lists no tab although it shows a page")
        self.model = SessionModel.opened_on(state, start_page(self.env), self.env.main_origin)

    def can(self, member: str) -> bool:
        return self.subject.implements(member)

    def call(self, member: str, **arguments: Any) -> CallOutcome:
        """The step's one call, through the SDK."""
        return self.subject.call(member, **arguments)

    def position(self) -> int:
        """Where the page records stand now; a step's own effects come after it."""
        return len(self.env.effects())

    def settle(self) -> None:
        """Wait until every page has reported what it saw so far, for steps that judge an absence."""
        self.env.settle()

    def read(self, where: str) -> dict[str, Any]:
        """state() read directly after a step, judged on the state rules and the observation history."""
        try:
            state = self.subject.state()
        except Exception as error:
            violation("BR-STATE-001", f"after {where}, state() raised {describe_error(error)}")
        judge_state_rules(state, where)
        assert isinstance(state, Mapping)
        observation = judge_observation(self.tabs, state, where)
        if observation is not None:
            self.tabs.observation = observation
        return dict(state)

    def expect_done(self, outcome: CallOutcome, clause: str, where: str) -> None:
        """The call ran without raising. If the SDK rejected a state around it, the documented rules are judged on
        the driver's own state first: the rejection is usually one of them broken, and the finding names it."""
        self._sdk_first(outcome, where)
        try:
            expect_done(outcome, clause)
        except ClauseViolation as failed:
            raise CallFailed(failed.clause_id, failed.detail, outcome.member) from None

    def expect_refused(self, outcome: CallOutcome, clause: str, why: str, where: str) -> None:
        self._sdk_first(outcome, where)
        expect_refused(outcome, clause, why)

    def expect_accepted(self, outcome: CallOutcome, where: str) -> None:
        """The SDK accepted the call (list_tabs has no driver method, only the state it reads)."""
        self._sdk_first(outcome, where)

    def _sdk_first(self, outcome: CallOutcome, where: str) -> None:
        if outcome.sdk_error is not None:
            self.read(where)
            raise outcome.blocked()

    def await_load(self, position: int, page: str, clause: str, what: str) -> Effect:
        """The load record of ``page`` made after ``position``, or a failure of ``clause``."""
        # The store hands out the same record objects, so identity tells an earlier record from a later one.
        earlier = {id(effect) for effect in self.env.effects()[:position]}
        found = self.env.poll_effect(
            "load", lambda effect: effect.get("page") == page and id(effect) not in earlier, LOAD_SECONDS
        )
        if found is None:
            violation(clause, f"{what}, but {page} never recorded loading within {LOAD_SECONDS:g} s")
        return found

    def loads_since(self, position: int) -> list[Effect]:
        return [effect for effect in self.env.effects()[position:] if effect.get("kind") == "load"]


def sessions_from(
    harness: BrowserHarness, start_page: str, hints: DriverHints, note: Callable[[str], None] | None
) -> Callable[[], AbstractContextManager[ExploredSession]]:
    """A maker of fresh, started sessions: each a new driver from the harness (the way the ``subject`` fixture makes
    one, a Node harness's included), closed when its sequence ends."""

    @contextmanager
    def fresh() -> Iterator[ExploredSession]:
        with harness.subject(start_page, hints, note) as subject:
            session = ExploredSession(subject)
            session.start()
            yield session

    return fresh
