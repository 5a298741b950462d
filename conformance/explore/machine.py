"""The state machine hypothesis drives: one fresh driver session per sequence, one step per rule call.

Each example hypothesis makes is one sequence on a driver of its own (opened through the harness like any check's
driver, so a JavaScript driver over the bridge is explored the same way) and closed when the sequence ends.

The machine has a single rule that draws a step's kind from a weighted list, rather than one rule per kind:
hypothesis enables only a random subset of a machine's rules in each example (swarm testing), which in the handful
of sequences a certification can afford would often leave out new_tab or close_tab, the members the sequence-level
rules are about. A kind the driver lacks, or the model does not allow now (closing needs two open tabs), gives way
to the next kind of a fixed chain. Tabs are drawn as positions among the open (or closed) tabs, so a shrunk
sequence names the first tabs, and a dropped step leaves the rest meaningful.

What every sequence did is kept in a :class:`Runs` record, so the runner can report the sequence hypothesis
shrank to (and how many steps exploration took) without parsing hypothesis's own output.

The engine (:class:`SequenceMachine`, :class:`Run`, :class:`Runs`) knows nothing of browsers: a step is anything that
says itself in words and performs on a session (:class:`SequenceStep`). :class:`ExplorationMachine` draws browser
steps; :mod:`conformance.explore.computer_machine` draws desktop actions on the same engine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, field
from typing import Any, Protocol

from hypothesis import strategies as st
from hypothesis.control import current_build_context
from hypothesis.stateful import RuleBasedStateMachine, rule

from conformance.assertions import ClauseViolation

from .session import ExploredSession
from .steps import (
    PAGES,
    CloseTab,
    GoneTab,
    ListTabs,
    Navigate,
    NavigateElsewhere,
    NewTab,
    ReadText,
    Step,
    SwitchTab,
    VisitDialogs,
)


class SequenceStep(Protocol):
    """One step of an explored sequence: its words in a certificate, and the call it makes and judges."""

    def words(self) -> str: ...

    def perform(self, session: Any) -> None: ...


# A maker of fresh, started sessions (a browser's ExploredSession, a desktop's ExploredDesktop).
OpenSession = Callable[[], AbstractContextManager[Any]]

# The kinds of step and how often each is drawn (a kind listed twice is drawn twice as often): tab changes and
# navigations most, as the sequence-level rules are about them; the dialogs page least, as it costs half a second.
# hypothesis shrinks a step towards the first kind, the plainest read.
KINDS = (
    "list_tabs",
    "read_text",
    "read_text",
    "read_text",
    "navigate",
    "navigate",
    "navigate",
    "new_tab",
    "new_tab",
    "new_tab",
    "new_tab",
    "switch_tab",
    "switch_tab",
    "close_tab",
    "close_tab",
    "close_tab",
    "navigate_elsewhere",
    "use_a_gone_tab",
    "use_a_gone_tab",
    "visit_dialogs",
)
# The member each kind needs, and the kind drawn instead when the driver lacks it or the model does not allow it
# (switching or closing needs a second tab): a chain that ends at list_tabs, which every driver has.
_MEMBER_OF = {
    "read_text": "get_page_text",
    "navigate": "navigate",
    "new_tab": "new_tab",
    "switch_tab": "switch_tab",
    "close_tab": "close_tab",
    "navigate_elsewhere": "navigate",
    "visit_dialogs": "navigate",
}
_INSTEAD = {
    "switch_tab": "new_tab",
    "close_tab": "new_tab",
    "new_tab": "navigate",
    "navigate": "read_text",
    "navigate_elsewhere": "use_a_gone_tab",
    "use_a_gone_tab": "read_text",
    "visit_dialogs": "read_text",
    "read_text": "list_tabs",
}
# A tab is drawn as a position among the open (or closed) tabs; six covers the tabs a sequence mostly has open.
# None (a null tab_id, or an ID never issued) is drawn one time in four, and first, so shrinking prefers it.
_MAYBE_POSITION = st.sampled_from((None, None, *range(6)))
_PAGE = st.sampled_from(sorted(PAGES))
_GONE_MEMBERS = ("switch_tab", "close_tab", "navigate")


@dataclass
class Run:
    """One sequence: the steps it took, and the violation that ended it (None when it kept every rule)."""

    steps: list[SequenceStep] = field(default_factory=list)
    failure: ClauseViolation | None = None
    tab_ids: dict[str, str] = field(default_factory=dict)  # the model's names -> this session's IDs (browser tabs)
    seconds: float = 0.0  # the whole sequence, opening and closing its driver included
    started: float = field(default_factory=time.perf_counter)
    step_seconds: list[float] = field(default_factory=list)  # each step's own time, for the bench


@dataclass
class Runs:
    """Every sequence exploration ran, and what stopped it if something other than a clause did.

    ``shrink_sequences`` bounds how many sequences hypothesis's shrinking may run on real drivers once one has
    failed. It is a count, not a time, so the same seed on the same driver shrinks to the same sequence however
    busy the machine is: the seed a certificate prints replays its finding exactly.
    """

    shrink_sequences: int
    runs: list[Run] = field(default_factory=list)
    # A driver that hung, a harness that failed, a skip: not a finding to shrink, so exploration stops on it.
    stopped: BaseException | None = None

    def failing(self) -> list[Run]:
        return [run for run in self.runs if run.failure is not None]

    def shrinking_spent(self) -> bool:
        """Whether the sequences shrinking may run are all run (the first failing sequence is not one of them)."""
        failing = self.failing()
        if not failing:
            return False
        return len(self.runs) - self.runs.index(failing[0]) - 1 >= self.shrink_sequences

    def smallest(self) -> Run | None:
        """The shortest failing sequence; of equals, the latest (hypothesis's shrinking only ever moves down)."""
        failing = self.failing()
        return min(reversed(failing), key=lambda run: len(run.steps)) if failing else None


class SequenceMachine(RuleBasedStateMachine):
    """One sequence of steps on one fresh session; subclasses add the rule that draws a step and performs it."""

    session: Any

    def __init__(self, open_session: OpenSession, runs: Runs) -> None:
        super().__init__()
        if runs.stopped is not None:
            # Exploration is over (the driver hung, say); hypothesis may still ask for examples.
            raise runs.stopped
        self._runs = runs
        self._run = Run()
        self._stack = ExitStack()
        # Once shrinking has run its sequences, every candidate it still tries passes without a driver: hypothesis
        # then finds nothing smaller and stops. Its final replay of the sequence it kept runs for real.
        self.idle = runs.shrinking_spent() and not current_build_context().is_final
        if self.idle:
            return
        runs.runs.append(self._run)
        try:
            self.session = self._stack.enter_context(open_session())
        except BaseException as error:
            runs.stopped = error
            self._stack.close()
            raise

    def perform(self, step: SequenceStep) -> None:
        self._run.steps.append(step)
        started = time.perf_counter()
        try:
            step.perform(self.session)
        except ClauseViolation as violation:
            self._run.failure = violation
            raise
        except BaseException as error:
            self._runs.stopped = error
            raise
        finally:
            self._run.step_seconds.append(time.perf_counter() - started)

    def identities(self) -> dict[str, str]:
        """The names the sequence's steps use for what the driver identified (tabs), with the driver's IDs."""
        return {}

    def teardown(self) -> None:
        if self.idle:
            return
        self._run.tab_ids = self.identities()
        self._run.seconds = time.perf_counter() - self._run.started
        self._stack.close()


class ExplorationMachine(SequenceMachine):
    """One sequence of browser steps on one fresh driver session."""

    session: ExploredSession

    def identities(self) -> dict[str, str]:
        model = self.session.model
        return {tab.name: tab.id for tab in (*model.tabs, *model.closed)} if model is not None else {}

    # ----- drawing a step -------------------------------------------------------------------------------------

    @rule(kind=st.sampled_from(KINDS), page=_PAGE, position=_MAYBE_POSITION, variant=st.integers(0, 2))
    def step(self, kind: str, page: str, position: int | None, variant: int) -> None:
        """One step of ``kind``, or the nearest kind the driver and the model allow now."""
        if self.idle:
            return
        self.perform(self._step(self._possible(kind), page, position, variant))

    def _possible(self, kind: str) -> str:
        session = self.session
        several = len(session.tabs.tabs) >= 2
        while True:
            member = _MEMBER_OF.get(kind)
            if kind == "use_a_gone_tab":
                possible = any(session.can(name) for name in _GONE_MEMBERS)
            else:
                possible = member is None or session.can(member)
            if possible and (several or kind not in ("switch_tab", "close_tab")):
                return kind
            kind = _INSTEAD[kind]

    def _step(self, kind: str, page: str, position: int | None, variant: int) -> Step:
        model = self.session.tabs
        names = model.names()
        tab = None if position is None else names[position % len(names)]
        if kind == "navigate":
            return Navigate(page, tab)
        if kind == "navigate_elsewhere":
            return NavigateElsewhere(tab)
        if kind == "new_tab":
            # Every third new tab is blank (the documents' null URL).
            return NewTab(None if variant == 2 else page, model.next_name())
        if kind == "switch_tab":
            return SwitchTab(names[(position or 0) % len(names)])
        if kind == "close_tab":
            return CloseTab(names[(position or 0) % len(names)])
        if kind == "use_a_gone_tab":
            members = [name for name in _GONE_MEMBERS if self.session.can(name)]
            # A closed tab's ID whenever there is one (an ID never issued is the single-situation checks' case).
            closed = [tab.name for tab in model.closed]
            gone = closed[(position or 0) % len(closed)] if closed else None
            return GoneTab(members[variant % len(members)], gone)
        if kind == "read_text":
            return ReadText()
        if kind == "visit_dialogs":
            return VisitDialogs()
        return ListTabs()


MachineFactory = Callable[[OpenSession, Runs], Callable[[], SequenceMachine]]


def machine_factory(open_session: OpenSession, runs: Runs) -> Callable[[], SequenceMachine]:
    """The browser state machine factory hypothesis calls once per sequence."""

    def factory() -> ExplorationMachine:
        return ExplorationMachine(open_session, runs)

    return factory
