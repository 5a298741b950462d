"""Running an exploration: a budget of sequences, a seed that replays them, and shrinking bounded in time.

hypothesis generates the sequences from the seed (``database=None``: nothing is kept between runs, so the seed
alone says what runs) and, when one fails, shrinks it to the shortest sequence that still fails. Shrinking replays
candidate sequences on fresh drivers, each costing real browser time, so it is bounded in seconds: when the bound is
reached, the shortest failing sequence found so far is the finding. The same seed on the same driver runs the same
sequences, so a certificate's ``--explore-seed`` replays its finding.

The engine serves browser and desktop exploration alike: :func:`explore` takes the machine factory that draws the
steps and the function that replays a given sequence (for shortening), the browser's by default.

Only a clause violation is a finding. A driver that hangs, a harness that fails or a check skipped ends exploration
at once with that outcome, as it ends any check: shrinking it would only repeat the hang.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

from hypothesis import HealthCheck, Phase, Verbosity, seed, settings
from hypothesis.internal.conjecture import engine
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from conformance.assertions import ClauseViolation

from .machine import MachineFactory, OpenSession, Run, Runs, SequenceStep, machine_factory
from .session import ExploredSession
from .steps import NewTab, Step

# Steps in one sequence: long enough for the documented sequence-level rules to meet (open two tabs, close one in
# the background, then use a null tab_id takes four), short enough that a failing one shrinks in a few replays.
STEPS_PER_SEQUENCE = 12
# Shrinking is bounded by counts, so the same seed gives the same finding on a busy machine as on an idle one:
# sequences hypothesis's own shrinking may run (it mostly simplifies the steps' arguments), then sequences
# :func:`shorten` may run leaving out one step at a time.
SHRINK_SEQUENCES = 16
SHORTEN_SEQUENCES = 24
# A safety net only, far above what the counts take with a working browser (a driver that takes seconds a step):
# past it, the shortest failing sequence found so far is the finding.
SHRINK_SECONDS = 90.0


@dataclass(frozen=True)
class Budget:
    """How much to explore: ``sequences`` fresh sessions of ``steps`` steps, drawn from ``seed``."""

    sequences: int
    seed: int
    steps: int = STEPS_PER_SEQUENCE
    shrink_sequences: int = SHRINK_SEQUENCES
    shorten_sequences: int = SHORTEN_SEQUENCES
    shrink_seconds: float = SHRINK_SECONDS


@dataclass(frozen=True)
class Finding:
    """A failing sequence, shrunk: its steps (the last one failed), the violation, and the seed that replays it."""

    steps: tuple[SequenceStep, ...]
    violation: ClauseViolation
    seed: int
    tab_ids: dict[str, str]

    @property
    def clause(self) -> str:
        return self.violation.clause_id


@dataclass(frozen=True)
class Exploration:
    """What one exploration ran and found."""

    budget: Budget
    runs: tuple[Run, ...]
    seconds: float
    finding: Finding | None
    shortening_replays: int = 0  # replays :func:`shorten` made after hypothesis

    @property
    def sequences(self) -> int:
        return len(self.runs)

    @property
    def steps(self) -> int:
        return sum(len(run.steps) for run in self.runs)

    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0


def explore(
    open_session: OpenSession,
    budget: Budget,
    *,
    machine: MachineFactory = machine_factory,
    replay_steps: ReplaySteps | None = None,
) -> Exploration:
    """Run ``budget.sequences`` sequences, each on a session from ``open_session``, shrinking the first failure.

    ``machine`` draws the steps (browser members by default) and ``replay_steps`` performs a given sequence on a
    fresh session when shortening it (the browser's :func:`replay` by default).

    Raises what stopped exploration when it was not a clause violation (a hang, a skip, a blocked start).
    """
    runs = Runs(budget.shrink_sequences)
    factory = seed(budget.seed)(machine(open_session, runs))
    options = settings(
        max_examples=budget.sequences,
        stateful_step_count=budget.steps,
        deadline=None,
        database=None,
        derandomize=False,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
        print_blob=False,
    )
    started = time.perf_counter()
    try:
        with _shrinking_bounded(budget.shrink_seconds / 2):
            # Typed as taking a class, documented as taking any factory of machines (a function is one).
            run_state_machine_as_test(cast("type[RuleBasedStateMachine]", factory), settings=options)
    except BaseException as error:
        if runs.stopped is not None:
            raise runs.stopped from None
        # hypothesis reraises the failure of the sequence it shrank to (or says the driver was flaky about it); the
        # record of every run says which sequence that was, so what it raised is not needed. Anything else is not
        # a finding and goes on.
        if not isinstance(error, Exception) or not runs.failing():
            raise
    smallest = runs.smallest()
    finding, replays = None, 0
    if smallest is not None and smallest.failure is not None:
        finding = Finding(tuple(smallest.steps), smallest.failure, budget.seed, dict(smallest.tab_ids))
        failed_at = min(run.started for run in runs.failing())
        deadline = failed_at + budget.shrink_seconds
        finding, replays = shorten(
            open_session, finding, budget.shorten_sequences, deadline, replay_steps or _renumbering_replay
        )
    return Exploration(budget, tuple(runs.runs), time.perf_counter() - started, finding, replays)


@dataclass(frozen=True)
class Replayed:
    """What performing a given sequence did: the steps performed (renamed) and the violation that stopped it.

    ``possible`` is False when a step could not be performed at all (it named a tab a shorter sequence never
    opened): such a candidate says nothing about the defect.
    """

    steps: tuple[SequenceStep, ...]
    violation: ClauseViolation | None
    possible: bool
    tab_ids: dict[str, str]


class _Impossible(Exception):
    """A step names a tab the sequence being replayed never opened."""


# Performs a sequence on a started session (shortening's candidates), stopping at the first violation.
ReplaySteps = Callable[[Any, Sequence[SequenceStep]], Replayed]


def _renumbering_replay(session: Any, steps: Sequence[SequenceStep]) -> Replayed:
    return replay(session, steps, renumber=True)


def replay(session: ExploredSession, steps: Sequence[SequenceStep], *, renumber: bool = False) -> Replayed:
    """Perform ``steps`` on a started session, stopping at the first violation.

    With ``renumber``, the tabs the sequence's own new_tab steps open are renamed in order (the sequence without
    its second new_tab calls its third tab T2), so a sequence with steps left out still reads as one.
    """
    browser_steps = [step for step in steps if isinstance(step, Step)]
    assert len(browser_steps) == len(steps), "a browser session replays browser steps"
    created = {step.name for step in browser_steps if isinstance(step, NewTab)} if renumber else set()
    names: dict[str, str] = {}

    def rename(name: str) -> str:
        if name not in created:
            return name
        if name not in names:
            raise _Impossible(name)
        return names[name]

    performed: list[SequenceStep] = []

    def ended(violation: ClauseViolation | None, possible: bool = True) -> Replayed:
        model = session.model
        tab_ids = {tab.name: tab.id for tab in (*model.tabs, *model.closed)} if model else {}
        return Replayed(tuple(performed), violation, possible, tab_ids)

    for original in browser_steps:
        if isinstance(original, NewTab) and renumber:
            names[original.name] = session.tabs.next_name()
        try:
            step = original.renamed(rename)
        except _Impossible:
            return ended(None, possible=False)
        if not step.possible(session.tabs):
            return ended(None, possible=False)
        performed.append(step)
        try:
            step.perform(session)
        except ClauseViolation as violation:
            return ended(violation)
    return ended(None)


def shorten(
    open_session: OpenSession,
    finding: Finding,
    most: int,
    deadline: float,
    replay_steps: ReplaySteps = _renumbering_replay,
) -> tuple[Finding, int]:
    """Leave out one step at a time while the shorter sequence still fails the same clause; (finding, replays).

    hypothesis shrinks by its choices, which in a sequence of browser steps often turns a step into the plainest
    read rather than dropping it, and every candidate costs a fresh driver; leaving out whole steps is the shrink
    that matters here, so it gets its own pass. Each candidate runs on a fresh session: at most ``most`` of them,
    and none after ``deadline``.
    """
    current, replays, index = finding, 0, 0
    while index < len(current.steps) - 1 and replays < most and time.perf_counter() < deadline:
        candidate = [*current.steps[:index], *current.steps[index + 1 :]]
        with open_session() as session:
            attempt = replay_steps(session, candidate)
        replays += 1
        if attempt.violation is not None and attempt.violation.clause_id == current.clause:
            current = Finding(attempt.steps, attempt.violation, current.seed, attempt.tab_ids)
            continue  # the step now at ``index`` is the next one to try leaving out
        index += 1
    return current, replays


@contextmanager
def _shrinking_bounded(seconds: float) -> Iterator[None]:
    """Bound hypothesis's shrinking in time, as a safety net behind the count (:class:`Runs`).

    hypothesis gives up shrinking after a fixed five minutes, far beyond what a certification can spend. Its engine
    reads that bound from a module constant when shrinking starts, and exploration runs on the check's own thread,
    so the constant is set for the duration of one exploration and restored after it.
    """
    saved = engine.MAX_SHRINKING_SECONDS
    engine.MAX_SHRINKING_SECONDS = max(1, round(seconds))
    try:
        yield
    finally:
        engine.MAX_SHRINKING_SECONDS = saved
