"""Per-check results, and how they add up to a status for each clause, blamed on the root cause.

Each contract check declares the clauses it covers. When it runs, the plugin records a :class:`CheckResult`
(on the pytest-xdist worker, carried to the controller in the report's ``user_properties``). A clause then
gets one status, decided by the single precedence table :data:`PRECEDENCE` (merging certificates uses it too):

- ``failed`` when a check blamed it and that check was not blocked by a broken precondition;
- ``deviation`` when a check covering it is a recorded known SDK deviation (an expected failure);
- ``passed`` when at least one check covering it passed and none blamed it;
- ``unverified`` when the subject implements what the clause is about but no check could exercise it (the
  reason says what the subject must offer to make it checkable);
- ``not_implemented`` when the checks covering it were skipped because the subject lacks a member;
- ``not_checked`` otherwise, with one of the reasons of :data:`WHY_PRECEDENCE`.

One defect, one finding: a check that relies on a clause (``requires`` on the check, or a precondition the
check verified at the point of use) says nothing new when that clause is broken. Its clauses are "blocked by"
the root clause, which alone is failed, and :func:`fix_first` orders the root causes by how much they block.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Literal

from conformance.clauses import Clause
from conformance.requirements import requirement_of

CheckOutcome = Literal[
    "passed", "failed", "not_implemented", "unverified", "not_provoked", "not_checked", "skipped", "deviation"
]
ClauseStatus = Literal["passed", "failed", "deviation", "unverified", "not_implemented", "not_checked"]
# Why a clause was not checked, most telling first:
# - blocked: a clause its check relies on failed (the root cause is named);
# - stopped: its check ran and stopped at an earlier clause of the same check;
# - not_provoked: its check could not make the page do what the clause is about;
# - environment: the machine or the harness failed;
# - not_run: no check covering it ran (deselected, or the run ended before it).
NotCheckedWhy = Literal["blocked", "stopped", "not_provoked", "environment", "not_run"]
WHY_PRECEDENCE: tuple[NotCheckedWhy, ...] = ("blocked", "stopped", "not_provoked", "environment", "not_run")
# The one order in which check outcomes decide a clause (and in which merged shards do), strongest first.
PRECEDENCE: tuple[ClauseStatus, ...] = ("failed", "deviation", "passed", "unverified", "not_implemented", "not_checked")
USER_PROPERTY = "driverkit"

DESELECTED = "deselected: no check covering it was selected in this run"
NOT_REACHED = "the run ended before any check covering it ran"


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
    # The blamed clause is a precondition the check verified at the point of use: its own clauses are blocked.
    precondition: bool = False
    # Clauses the check relies on to judge anything (pytest.mark.requires): when one failed elsewhere in the
    # run, this check's failure is blocked by it rather than a finding of its own.
    requires: tuple[str, ...] = ()

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
            precondition=bool(data.get("precondition", False)),
            requires=tuple(data.get("requires", ())),
        )


@dataclass
class ClauseResult:
    clause: Clause
    status: ClauseStatus
    checks: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    # For an unverified clause, the implemented members no check could exercise.
    members: list[str] = field(default_factory=list)
    # For a clause not checked: why, and for a blocked one the root clause that blocked it.
    why: NotCheckedWhy | None = None
    blocked_by: str | None = None


# Where the kit's own checks live, as a node ID's path spells it from any rootdir (a checkout, site-packages).
_CONTRACTS_IN_PATH = "conformance/contracts/"


def check_id(nodeid: str) -> str:
    """The stable ID a certificate gives a check: ``contracts/browser/check_tabs.py::test_x`` for the kit's own
    checks wherever the kit is installed (a node ID from a wheel starts with ``.venv/lib/python3.11/...``), the
    node ID unchanged for anything else."""
    path, separator, name = nodeid.partition("::")
    cut = path.rfind(_CONTRACTS_IN_PATH)
    if cut < 0 or (cut > 0 and path[cut - 1] != "/"):
        return nodeid
    return f"{path[cut + len('conformance/') :]}{separator}{name}"


def short_check(nodeid: str) -> str:
    """``check_tabs.py::test_x`` for a check node ID, whatever folder it was collected from."""
    path, _, name = nodeid.partition("::")
    return f"{path.rsplit('/', 1)[-1]}::{name}" if name else path


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

    def clause_results(self, clauses: Iterable[Clause], *, complete: bool = True) -> list[ClauseResult]:
        """Each clause's status; ``complete`` is False when the run ended early (it words "no check ran")."""
        by_clause: dict[str, list[CheckResult]] = {}
        for result in self.results:
            for clause_id in set(result.clauses) | set(result.blamed):
                by_clause.setdefault(clause_id, []).append(result)
        blame = _Blame(self.results)
        return [_status(clause, by_clause.get(clause.id, ()), blame, complete) for clause in clauses]


class _Blame:
    """Which failed checks are blocked by a precondition that failed elsewhere in the run.

    A check is blocked when a clause it requires was blamed by a check that is itself not blocked. A check that
    verified its precondition at the point of use blames the root itself and is never blocked, so every chain
    of blocked checks ends at a failed clause; a cycle of requirements (two checks each requiring the other's
    clause) blocks neither, so a defect is never hidden.
    """

    def __init__(self, results: Sequence[CheckResult]) -> None:
        self.blamers: dict[str, list[CheckResult]] = {}
        for result in results:
            if result.outcome == "failed":
                for clause_id in result.blamed:
                    self.blamers.setdefault(clause_id, []).append(result)
        self._memo: dict[int, tuple[str, CheckResult] | None] = {}

    def blocker(self, result: CheckResult, visiting: frozenset[int] = frozenset()) -> tuple[str, CheckResult] | None:
        """The required clause (and a check that failed it) blocking ``result``, or None."""
        key = id(result)
        if key in self._memo:
            return self._memo[key]
        if result.precondition or result.outcome != "failed" or not result.requires:
            return None
        found: tuple[str, CheckResult] | None = None
        for required in result.requires:
            if required in result.blamed:
                continue
            for other in self.blamers.get(required, ()):
                if other is result or id(other) in visiting:
                    continue
                if self.blocker(other, visiting | {key}) is None:
                    found = (required, other)
                    break
            if found:
                break
        if not visiting:
            self._memo[key] = found
        return found


def _status(clause: Clause, results: Sequence[CheckResult], blame: _Blame, complete: bool) -> ClauseResult:
    blamed = [result for result in results if clause.id in result.blamed]
    unblocked = [result for result in blamed if blame.blocker(result) is None]
    if unblocked:
        # A check that judged the clause itself explains it best; checks that met it as a precondition follow.
        telling = sorted(unblocked, key=lambda r: r.precondition)
        reasons = list(dict.fromkeys(r.reason for r in telling if r.reason))
        return ClauseResult(clause, "failed", [r.nodeid for r in unblocked], reasons)
    # A known deviation outranks passes: the SDK breaks the clause in at least one mode, even if others pass.
    # One check that exercised the clause outranks checks that could not; a member the kit could not exercise
    # outranks "not implemented", which only holds when nothing the clause needs is there.
    for status in PRECEDENCE[1:-1]:
        matching = [
            result
            for result in results
            if result.outcome == status and (status != "deviation" or clause.id in result.deviates)
        ]
        if matching:
            reasons = sorted({r.reason for r in matching if r.reason}) if status != "passed" else []
            members = sorted({r.member for r in matching if r.member}) if status == "unverified" else []
            return ClauseResult(clause, status, [r.nodeid for r in matching], reasons, members)
    return _not_checked(clause, results, blame, complete)


def _not_checked(clause: Clause, results: Sequence[CheckResult], blame: _Blame, complete: bool) -> ClauseResult:
    found: dict[NotCheckedWhy, list[tuple[CheckResult, str, str | None]]] = {}
    for result in results:
        check = short_check(result.nodeid)
        blocked = blame.blocker(result)
        if blocked is not None:
            root, other = blocked
            why: NotCheckedWhy = "blocked"
            text, by = f"blocked by {root} (failed in {short_check(other.nodeid)})", root
        elif result.outcome == "failed" and result.precondition and result.blamed:
            root = result.blamed[0]
            why, text, by = "blocked", f"blocked by {root} (failed in {check})", root
        elif result.outcome == "failed":
            first = ", ".join(result.blamed) or "an earlier step"
            why, text, by = "stopped", f"not reached: {check} stopped at {first}, which failed first", None
        elif result.outcome == "not_provoked":
            why, text, by = "not_provoked", f"could not provoke it: {result.reason}", None
        elif result.outcome == "not_checked":
            why, text, by = "environment", result.reason, None
        else:  # an ordinary pytest skip, or a deviation that names other clauses of its check
            why, text, by = "not_run", f"{check} was skipped: {result.reason}" if result.reason else "", None
        found.setdefault(why, []).append((result, text, by))
    for why in WHY_PRECEDENCE:
        if why in found:
            entries = found[why]
            reasons = list(dict.fromkeys(text for _, text, _ in entries if text))
            blocker = next((by for _, _, by in entries if by), None)
            return ClauseResult(
                clause,
                "not_checked",
                [r.nodeid for r, _, _ in entries],
                reasons or [_not_run(complete)],
                [],
                why,
                blocker,
            )
    return ClauseResult(clause, "not_checked", [], [_not_run(complete)], [], "not_run")


def _not_run(complete: bool) -> str:
    return DESELECTED if complete else NOT_REACHED


@dataclass(frozen=True)
class RootCause:
    """One entry of "what to fix first": a failed clause and the clauses it kept from being checked.

    ``same_cause`` are the other failed clauses of the same requirement (conformance.requirements), listed with
    it rather than as entries of their own."""

    clause: ClauseResult
    blocks: tuple[str, ...]
    members: tuple[str, ...]
    same_cause: tuple[str, ...] = ()


def fix_first(results: Sequence[ClauseResult]) -> list[RootCause]:
    """Failed clauses as a to-do list: the causes that block the most clauses first, then the independent
    failures, those more checks met first; each names the members its blocked clauses are about. Failed clauses
    that are paths of one requirement are one cause."""
    blocked: dict[str, list[ClauseResult]] = {}
    for result in results:
        if result.status == "not_checked" and result.blocked_by:
            blocked.setdefault(result.blocked_by, []).append(result)
    groups: dict[str, list[ClauseResult]] = {}
    for result in results:
        if result.status == "failed":
            requirement = requirement_of(result.clause.id)
            groups.setdefault(requirement.name if requirement else result.clause.id, []).append(result)
    causes = []
    for group in groups.values():
        dependents = [dependent for result in group for dependent in blocked.get(result.clause.id, [])]
        members = {r.clause.member for r in [*group, *dependents] if r.clause.member}
        # The path more checks met stands for the cause; the others are named with it.
        first = min(group, key=lambda result: -len(result.checks))
        others = tuple(result.clause.id for result in group if result is not first)
        causes.append(RootCause(first, tuple(r.clause.id for r in dependents), tuple(sorted(members)), others))
    order = {id(cause): index for index, cause in enumerate(causes)}
    # Then the cause more checks met, then clause order: what breaks more of the run comes first.
    return sorted(
        causes,
        key=lambda cause: (-len(cause.blocks), -len(cause.same_cause), -len(cause.clause.checks), order[id(cause)]),
    )
