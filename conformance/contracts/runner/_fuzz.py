"""The fuzz engine: judge a generated cassette in every mode, search with hypothesis, shrink what fails.

:func:`judge` runs one cassette in the given modes (:mod:`._generated`) and applies the documents' rules to each
run and across them (:mod:`conformance.streams.properties`), setting aside runs a recorded known deviation
explains (:mod:`conformance.streams.known`). :func:`search` lets hypothesis draw cassettes
(:mod:`conformance.streams.strategies`) until one breaks a rule; hypothesis then shrinks the drawn run, rerunning
only the modes that failed. :func:`minimal_finding` goes on by delta debugging over the cassette itself
(:mod:`conformance.streams.shrink`), keeping the same rule broken in the same mode (and, where a replay can show
that rule, ``driverkit replay`` showing it too), and :func:`write_finding` saves the result with the finding in its
header, ready for ``driverkit replay FILE --mode M``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as fixed_seed

from conformance import cassettes
from conformance.assertions import ClauseViolation
from conformance.cassettes import Cassette
from conformance.contracts.runner._generated import observe
from conformance.rig import Mode
from conformance.streams.facts import Facts
from conformance.streams.known import Active, set_aside
from conformance.streams.observation import mode_named
from conformance.streams.properties import Violation, check_agreement, check_run, check_sdk_agreement
from conformance.streams.reproduce import UNSEEN_BY_REPLAY, replay_mode, reproduces, with_ledger
from conformance.streams.shrink import Reduction, shrink, size
from conformance.streams.strategies import RUN_FAULTS, RunFault
from conformance.streams.strategies import cassettes as generated

# The header meta key of a written finding (what broke, where, and what the documents expected).
FINDING_META: Final = "finding"
FINDINGS_ENV: Final = "DRIVERKIT_FINDINGS"
# Delta debugging stops after this long with the smallest cassette found so far.
SHRINK_SECONDS: Final = 120.0


@dataclass
class Judgement:
    """The rules one cassette broke, and the runs set aside as known deviations (mode ID to deviation ID)."""

    violations: list[Violation] = field(default_factory=list)
    excused: dict[str, str] = field(default_factory=dict)


def judge(
    cassette: Cassette, modes: Sequence[Mode], recognizers: Sequence[Active], compare_with: Sequence[Mode] = ()
) -> Judgement:
    """Run ``cassette`` in every mode of ``modes`` and collect every rule broken, per run and across runs; with
    ``compare_with`` (the Python SDK's modes, when ``modes`` are the Node SDK's), also each Node run against the
    Python run of the same delivery and ledger."""
    facts = Facts.of(cassette)
    observations = [observe(cassette, mode) for mode in modes]
    kept, excused = set_aside(facts, observations, recognizers)
    violations = [violation for observation in observations for violation in check_run(facts, observation)]
    violations += check_agreement(facts, kept)
    if compare_with:
        references, _ = set_aside(facts, [observe(cassette, mode) for mode in compare_with], recognizers)
        violations += check_sdk_agreement(facts, kept, references)
    return Judgement(violations, excused)


def modes_of(violation: Violation) -> tuple[list[Mode], list[Mode]]:
    """The modes that show ``violation`` (its own, and first the one an agreement compares it with), and the
    Python SDK's mode a disagreement between the SDKs compares it with."""
    mode = mode_named(violation.mode)
    if violation.reference is None:
        return [mode], []
    reference = mode_named(violation.reference)
    if reference.flavour != mode.flavour and "node" in (reference.flavour, mode.flavour):
        return [mode], [reference]
    return [reference, mode], []


class GeneratedStreamFinding(ClauseViolation):
    """A generated cassette broke a rule; carries the cassette so it can be shrunk and written."""

    def __init__(self, violation: Violation, cassette: Cassette) -> None:
        super().__init__(violation.clause, violation.render())
        self.violation = violation
        self.cassette = cassette


@dataclass
class Tally:
    """What a search saw: cassettes judged and runs set aside, per known deviation."""

    examples: int = 0
    excused: dict[str, int] = field(default_factory=dict)

    def add(self, judgement: Judgement) -> None:
        self.examples += 1
        for deviation in judgement.excused.values():
            self.excused[deviation] = self.excused.get(deviation, 0) + 1


def search(
    modes: Sequence[Mode],
    recognizers: Sequence[Active],
    *,
    examples: int,
    seed: int | None = None,
    max_turns: int = 4,
    faults_from: Sequence[RunFault] = RUN_FAULTS,
    compare_with: Sequence[Mode] = (),
    tally: Tally | None = None,
) -> None:
    """Draw up to ``examples`` cassettes (faults of the kinds ``faults_from``) and judge each in ``modes`` (and
    against ``compare_with``, see :func:`judge`); raise
    :class:`GeneratedStreamFinding` for the smallest failing cassette hypothesis finds (its shrinking reruns only
    the failing modes)."""
    focus, compared = list(modes), list(compare_with)
    counts = tally if tally is not None else Tally()

    # Other settings come from the loaded hypothesis profile.
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        report_multiple_bugs=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
    )
    @given(generated(max_turns, faults_from))
    def holds(cassette: Cassette) -> None:
        judgement = judge(cassette, focus, recognizers, compared)
        counts.add(judgement)
        if judgement.violations:
            violation = judgement.violations[0]
            # Shrinking reruns the test many times: only the modes that show this failure need to run.
            focus[:], compared[:] = modes_of(violation)
            raise GeneratedStreamFinding(violation, cassette)

    (holds if seed is None else fixed_seed(seed)(holds))()


def shows(target: Violation, recognizers: Sequence[Active], *, by_replay: bool) -> Callable[[Cassette], bool]:
    """The predicate delta debugging keeps: the same rule broken on the same clause in the same mode (and, with
    ``by_replay``, ``driverkit replay`` showing it as well)."""
    modes, compare_with = modes_of(target)

    def still(candidate: Cassette) -> bool:
        try:
            found = judge(candidate, modes, recognizers, compare_with).violations
        except ValueError:
            return False  # not a cassette the rig can rebuild a run from any more
        if not any(violation.key == target.key for violation in found):
            return False
        return not by_replay or reproduces(candidate, target)[0]

    return still


def minimal_finding(
    cassette: Cassette, target: Violation, recognizers: Sequence[Active], *, budget_seconds: float = SHRINK_SECONDS
) -> Reduction:
    """``cassette`` shrunk while it still breaks ``target``'s rule in ``target``'s mode, a replay showing it too
    where a replay can (if the starting cassette's replay does not, only the rule is kept)."""
    by_replay = target.rule not in UNSEEN_BY_REPLAY and reproduces(cassette, target)[0]
    return shrink(cassette, shows(target, recognizers, by_replay=by_replay), budget_seconds=budget_seconds)


def findings_directory(certificate: str | os.PathLike[str] | None) -> Path:
    """Where shrunk cassettes go: beside the certificate (``<certificate>/findings``), else $DRIVERKIT_FINDINGS,
    else a ``driverkit-findings`` folder in the temporary directory."""
    if certificate:
        return Path(certificate) / "findings"
    configured = os.environ.get(FINDINGS_ENV)
    return Path(configured) if configured else Path(tempfile.gettempdir()) / "driverkit-findings"


def finding_cassette(cassette: Cassette, target: Violation) -> Cassette:
    """The shrunk cassette as it is written: named after the rule, the finding in its header, and a ledger in its
    run settings when the failing mode keeps one (``driverkit replay`` takes the ledger from there)."""
    mode = mode_named(target.mode)
    meta = dict(with_ledger(cassette, mode.ledger).meta)
    meta[FINDING_META] = {
        "clause": target.clause,
        "rule": target.rule,
        "mode": target.mode,
        "reference": target.reference,
        "detail": target.detail,
        "replay": _replay_hint("FILE", mode),
    }
    name = f"finding-{target.clause.lower()}-{target.rule}-{target.mode}"
    return replace(cassette, scenario=name, description=f"Shrunk by the fuzz check: {target.render()}"[:500], meta=meta)


def write_finding(cassette: Cassette, target: Violation, directory: Path) -> Path:
    written = finding_cassette(cassette, target)
    digest = hashlib.sha256(written.dumps().encode()).hexdigest()[:8]
    path = directory / f"{written.scenario}-{digest}.jsonl"
    cassettes.save(written, path)
    return path


def _replay_hint(path: str, mode: Mode) -> str:
    ledger = " (the header asks for a ledger)" if mode.ledger else ""
    if mode.flavour == "node":
        # driverkit replay drives the Python SDK: it shows how that SDK runs the cassette, for comparison.
        python = f"async-{mode.delivery}"
        return f"the Python SDK on it: driverkit replay {path} --mode {python}{ledger} (replay has no Node mode)"
    return f"replay it: driverkit replay {path} --mode {replay_mode(mode)}{ledger}"


def report(finding: GeneratedStreamFinding, reduction: Reduction, path: Path) -> str:
    """The failure message: the broken rule, the shrunk cassette and how to replay it."""
    target = finding.violation
    shown, what = reproduces(reduction.cassette, target)
    mode = mode_named(target.mode)
    lines = [
        target.render(),
        f"shrunk cassette ({size(reduction.cassette)} events, {len(reduction.cassette.exchanges)} exchange(s)): {path}",
        _replay_hint(str(path), mode),
        f"the replay {'shows it' if shown else 'does not show it'}: {what}",
        reduction.report(),
    ]
    return "\n".join(lines)


__all__ = [
    "FINDING_META",
    "GeneratedStreamFinding",
    "Judgement",
    "Tally",
    "finding_cassette",
    "findings_directory",
    "judge",
    "minimal_finding",
    "modes_of",
    "report",
    "search",
    "shows",
    "write_finding",
]
