"""Per-check results, and how they add up to a status for each clause.

Each contract check declares the clauses it covers. When it runs, the plugin records a :class:`CheckResult`
(on the pytest-xdist worker, carried to the controller in the report's ``user_properties``). A clause then
gets one status:

- ``failed`` when any check blamed it (a :class:`~conformance.assertions.ClauseViolation` blames one clause,
  any other failure blames every clause the check declares);
- ``deviation`` when a check covering it is a recorded known SDK deviation (an expected failure);
- ``passed`` when at least one check covering it passed and none blamed it;
- ``unverified`` when the subject implements what the clause is about but no check could exercise it (the
  reason says what the subject must offer to make it checkable);
- ``not_implemented`` when the checks covering it were skipped because the subject lacks a member;
- ``not_checked`` otherwise: the environment failed (the reason says how), no check ran, or a check stopped
  before reaching it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Literal

from conformance.clauses import Clause

CheckOutcome = Literal["passed", "failed", "not_implemented", "unverified", "not_checked", "skipped", "deviation"]
ClauseStatus = Literal["passed", "failed", "deviation", "unverified", "not_implemented", "not_checked"]
USER_PROPERTY = "driverkit"


@dataclass(frozen=True)
class CheckResult:
    nodeid: str
    clauses: tuple[str, ...]
    outcome: CheckOutcome
    blamed: tuple[str, ...] = ()
    reason: str = ""
    profile: dict[str, object] | None = None
    # For a known-deviation outcome, the clauses the deviation names (the check may declare more).
    deviates: tuple[str, ...] = ()
    # For an unverified outcome, the implemented member the kit could not exercise.
    member: str | None = None

    def to_property(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_property(cls, text: str) -> CheckResult:
        data = json.loads(text)
        return cls(
            nodeid=data["nodeid"],
            clauses=tuple(data["clauses"]),
            outcome=data["outcome"],
            blamed=tuple(data["blamed"]),
            reason=data["reason"],
            profile=data.get("profile"),
            deviates=tuple(data.get("deviates", ())),
            member=data.get("member"),
        )


@dataclass
class ClauseResult:
    clause: Clause
    status: ClauseStatus
    checks: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    # For an unverified clause, the implemented members no check could exercise.
    members: list[str] = field(default_factory=list)


@dataclass
class CertificationSession:
    """Everything one run learned, gathered on the controller."""

    results: list[CheckResult] = field(default_factory=list)
    profile: dict[str, object] | None = None
    # What each check that failed or ended unverified saw (conformance.evidence), by check node ID.
    evidence: dict[str, dict[str, object]] = field(default_factory=dict)

    def add(self, result: CheckResult) -> None:
        self.results.append(result)
        if result.profile and self.profile is None:
            self.profile = result.profile

    def prefixes(self) -> set[str]:
        """The clause families (``BR``, ``TS``...) that this run's checks cover."""
        return {clause_id.split("-", 1)[0] for result in self.results for clause_id in result.clauses}

    def clause_results(self, clauses: Iterable[Clause]) -> list[ClauseResult]:
        by_clause: dict[str, list[CheckResult]] = {}
        for result in self.results:
            for clause_id in set(result.clauses) | set(result.blamed):
                by_clause.setdefault(clause_id, []).append(result)
        return [_status(clause, by_clause.get(clause.id, ())) for clause in clauses]


def _status(clause: Clause, results: Sequence[CheckResult]) -> ClauseResult:
    blamed = [result for result in results if clause.id in result.blamed]
    if blamed:
        return ClauseResult(clause, "failed", [r.nodeid for r in blamed], [r.reason for r in blamed if r.reason])
    # A known deviation outranks passes: the SDK breaks the clause in at least one mode, even if others pass.
    # One check that exercised the clause outranks checks that could not; a member the kit could not exercise
    # outranks "not implemented", which only holds when nothing the clause needs is there.
    order: tuple[tuple[ClauseStatus, CheckOutcome], ...] = (
        ("deviation", "deviation"),
        ("passed", "passed"),
        ("unverified", "unverified"),
        ("not_implemented", "not_implemented"),
        ("not_checked", "not_checked"),
    )
    for status, outcome in order:
        matching = [
            result
            for result in results
            if result.outcome == outcome and (outcome != "deviation" or clause.id in result.deviates)
        ]
        if matching:
            reasons = sorted({r.reason for r in matching if r.reason}) if outcome != "passed" else []
            members = sorted({r.member for r in matching if r.member}) if outcome == "unverified" else []
            return ClauseResult(clause, status, [r.nodeid for r in matching], reasons, members)
    return ClauseResult(clause, "not_checked", [r.nodeid for r in results])
