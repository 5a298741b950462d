"""Exploration: random sequences of computer actions leave the desktop as each action's fields say, every time.

The other computer checks each give one action to a fresh driver. This one (conformance.explore, on the engine the
browser exploration uses) drives fresh drivers with random sequences of moves, clicks (any button, with held keys),
double clicks, drags, scrolls, key combinations, keypresses the driver must refuse and typing, and after every
action compares the recorder page's record with a model of the desktop: the action's own events, then the rest it
left (no button or key held, the pointer where the action put it, no text but the text typed). A failing sequence is
shrunk to the shortest one that still fails, then replayed once on this check's own driver: the certificate's
evidence is that replay's actions, one per numbered step, and the reason names the clause, the steps, what the
last step showed and the seed that replays it (``--explore-seed``).

A finding that neither the replay on this check's driver nor one more on a fresh driver repeats is not reported as
a failure: on a loaded machine the desktop's browser has been seen, about once in several hundred drags, to lose a
drag's motion that every replay then delivers. The certificate notes it (the steps, what was seen, the seed), and
the check passes on what it could establish.

``--explore=N`` sets the number of sequences (0: off); the default keeps the added certification time near 15 s.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import pytest

from conformance.explore import options
from conformance.explore.computer_machine import desktop_machine_factory
from conformance.explore.computer_session import ExploredDesktop, desktop_sessions_from
from conformance.explore.computer_steps import replay_actions
from conformance.explore.render import long_form, reason
from conformance.explore.runner import Budget, Finding, explore
from conformance.harness.computer_subject import ComputerSubject
from conformance.harness.fixtures import COMPUTER_HARNESS_KEY, NOTE_PROPERTY

OpenDesktop = Callable[[], AbstractContextManager[ExploredDesktop]]
# Every clause a step can blame (conformance.explore.computer_steps and .computer_model).
BLAMED = (
    "CO-CLICK-001",
    "CO-CLICK-002",
    "CO-CLICK-003",
    "CO-DCLICK-001",
    "CO-MOVE-001",
    "CO-DRAG-001",
    "CO-SCROLL-001",
    "CO-TYPE-001",
    "CO-KEY-001",
    "CO-KEY-002",
    "CO-UNSUP-001",
)
# Shrinking's counts (conformance.explore.runner): a desktop sequence of ten actions needs fewer replays than a
# browser one to lose its extra steps, and each replay costs a second or more of real input.
SHRINK_SEQUENCES = 10
SHORTEN_SEQUENCES = 12
# The finding of the first run, for the evidence rerun, which replays it instead of exploring again.
_FINDING = pytest.StashKey[Finding]()


@pytest.mark.clause(*BLAMED)
def test_random_action_sequences_keep_the_documented_rules(
    computer_subject: ComputerSubject, request: pytest.FixtureRequest
) -> None:
    sequences = options.sequences(request.config, options.DEFAULT_COMPUTER_SEQUENCES)
    if sequences == 0:
        pytest.skip("exploration is off (--explore=0)")
    finding = request.node.stash.get(_FINDING, None)
    harness = request.config.stash[COMPUTER_HARNESS_KEY]
    fresh = desktop_sessions_from(harness, computer_subject.env, _note(request))
    if finding is None or computer_subject.evidence.camera is None:
        budget = Budget(
            sequences,
            options.seed(request.config, "--computer-driver"),
            steps=options.COMPUTER_STEPS_PER_SEQUENCE,
            shrink_sequences=SHRINK_SEQUENCES,
            shorten_sequences=SHORTEN_SEQUENCES,
        )
        found = explore(fresh, budget, machine=desktop_machine_factory, replay_steps=replay_actions)
        if found.finding is None:
            return
        finding = request.node.stash[_FINDING] = found.finding
        # The whole finding, one step a line, for the terminal (pytest shows a failing check's output).
        print(long_form(finding.clause, finding.steps, finding.violation.detail, finding.seed, {}, found.sequences))
    _report(computer_subject, finding, fresh, _note(request))


def _report(subject: ComputerSubject, finding: Finding, fresh: OpenDesktop, note: Callable[[str], None]) -> None:
    """Replay the finding on this check's own driver, so the certificate's evidence holds that replay's actions, and
    fail its clause with the numbered steps. A finding two replays do not repeat is noted instead (module docstring).
    """
    session = ExploredDesktop(subject)
    try:
        subject.env.release_held_input()
        session.start()
        again = replay_actions(session, finding.steps)
    finally:
        # Whatever the replay left pressed must not press it for the checks after this one.
        subject.env.release_held_input()
    if again.violation is None:
        with fresh() as other:
            again = replay_actions(other, finding.steps)
    if again.violation is None:
        detail = f"{finding.violation.detail} (two replays, one on a fresh driver, kept every rule: not a finding)"
        note(f"exploration saw {finding.clause} broken once: {reason(finding.steps, detail, finding.seed)}")
        return
    raise type(again.violation)(again.violation.clause_id, reason(again.steps, again.violation.detail, finding.seed))


def _note(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """Harness notes of the sequences' drivers (a cleanup that hung), listed on the certificate like any check's."""

    def note(text: str) -> None:
        request.node.user_properties.append((NOTE_PROPERTY, f"{request.node.nodeid}: {text}"))

    return note
