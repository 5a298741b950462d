"""Exploration: random sequences of members keep every documented invariant after every step.

The other browser checks each judge one member in one situation. This one (conformance.explore) drives fresh
drivers with random sequences of navigate, new_tab, switch_tab, close_tab, refused navigations, IDs of closed or
never-issued tabs, reads, list_tabs and a page that raises dialogs, and after every step compares state and reads
with a model of the session. A failing sequence is shrunk to the shortest one that still fails, then replayed once
on this check's own driver: the certificate's evidence is that replay's calls, one per numbered step, and the
reason names the clause, the steps, what the last step showed and the seed that replays it (``--explore-seed``).

Each sequence gets a driver of its own from the harness (as the ``subject`` fixture makes one), so JavaScript
drivers over the bridge are explored the same way. ``--explore=N`` sets the number of sequences (0: off).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import pytest

from conformance.assertions import not_implemented, unverified
from conformance.explore import options
from conformance.explore.render import long_form, reason
from conformance.explore.runner import Budget, Finding, explore, replay
from conformance.explore.session import CallFailed, ExploredSession, sessions_from
from conformance.harness.errors import bounded
from conformance.harness.fixtures import HARNESS_KEY, NOTE_PROPERTY
from conformance.harness.subject import BrowserSubject

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

START_PAGE = "tabs-a.html"
# Every clause a step can blame (conformance.explore.steps and .model).
BLAMED = (
    "BR-STATE-001",
    "BR-STATE-002",
    "BR-STATE-003",
    "BR-STATE-004",
    "BR-URL-002",
    "BR-OBS-001",
    "BR-OBS-002",
    "BR-OBS-003",
    "BR-OBS-004",
    "BR-OBS-005",
    "BR-OBS-006",
    "BR-OBS-007",
    "BR-NAV-001",
    "BR-NAV-002",
    "BR-NAV-003",
    "BR-TAB-001",
    "BR-TAB-002",
    "BR-TAB-003",
    "BR-TAB-004",
    "BR-TAB-005",
    "BR-TAB-006",
    "BR-TAB-007",
    "BR-TAB-008",
    "BR-READ-021",
    "BR-NET-001",
    "BR-NET-002",
    "BR-DLG-001",
    "BR-DLG-002",
    "BR-DLG-003",
    "BR-DLG-004",
)
# The finding of the first run, for the evidence rerun (conformance.evidence.rerun), which replays it instead of
# exploring again: the same steps, now with a picture before each.
_FINDING = pytest.StashKey[Finding]()


@pytest.mark.page(START_PAGE)
@pytest.mark.hints(observation=True)
@pytest.mark.clause(*BLAMED)
def test_random_sequences_keep_the_documented_invariants(
    subject: BrowserSubject, request: pytest.FixtureRequest
) -> None:
    sequences = options.sequences(request.config)
    if sequences == 0:
        pytest.skip("exploration is off (--explore=0)")
    if not (subject.implements("navigate") or subject.implements("new_tab")):
        not_implemented("navigate or new_tab (exploration needs a member that changes pages or tabs)")
    finding = request.node.stash.get(_FINDING, None)
    # The evidence rerun (a camera on the subject's log) replays the first run's finding instead of exploring again.
    if finding is None or subject.evidence.camera is None:
        harness = request.config.stash[HARNESS_KEY]
        fresh = sessions_from(harness, START_PAGE, subject.env.hints, _note(request))
        found = explore(fresh, Budget(sequences, options.seed(request.config)))
        if found.finding is None:
            return
        _unless_the_member_fails_alone(fresh, found.finding)
        finding = request.node.stash[_FINDING] = found.finding
        # The whole finding, one step a line, for the terminal (pytest shows a failing check's output).
        print(
            long_form(
                finding.clause,
                finding.steps,
                finding.violation.detail,
                finding.seed,
                finding.tab_ids,
                found.sequences,
            )
        )
    _report(subject, finding)


def _unless_the_member_fails_alone(
    fresh: Callable[[], AbstractContextManager[ExploredSession]], finding: Finding
) -> None:
    """A finding whose last call raised, made again as the only step on a fresh driver: if it fails there too, no
    sequence is involved. The member fails from the start page, which its own checks judge; blaming the step's tab
    rule would report one defect twice, under a clause that says what did not happen."""
    if not isinstance(finding.violation, CallFailed):
        return
    last = finding.steps[-1]
    if len(finding.steps) > 1:
        with fresh() as session:
            alone = replay(session, [last], renumber=True)
        if not isinstance(alone.violation, CallFailed):
            return
    unverified(
        finding.violation.member,
        f"exploration could not get past {last.words()}: it fails on the start page as the first step, before any "
        f"tab changed ({bounded(finding.violation.detail, 200)}); the member's own checks judge the failing call, "
        "and the sequence rules need it to succeed",
    )


def _report(subject: BrowserSubject, finding: Finding) -> None:
    """Replay the finding on this check's own driver, so the certificate's evidence holds that replay's calls, and
    fail its clause with the numbered steps; a replay that does not repeat it still reports what exploration saw."""
    session = ExploredSession(subject)
    session.start()
    again = replay(session, finding.steps)
    if again.violation is None:
        detail = f"{finding.violation.detail} (a replay on a fresh driver kept every rule: it depends on timing)"
        raise type(finding.violation)(finding.clause, reason(finding.steps, detail, finding.seed))
    raise type(again.violation)(again.violation.clause_id, reason(again.steps, again.violation.detail, finding.seed))


def _note(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """Harness notes of the sequences' drivers (a cleanup that hung), listed on the certificate like any check's."""

    def note(text: str) -> None:
        request.node.user_properties.append((NOTE_PROPERTY, f"{request.node.nodeid}: {text}"))

    return note
