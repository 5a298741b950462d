"""How a check says what it found: a broken clause, a broken precondition, or why it could not judge.

A check declares the clauses it covers with ``@pytest.mark.clause("BR-READ-001", ...)``. Everything it can
conclude travels as a typed exception, read by the plugin with ``isinstance`` (never parsed out of a message):

- :func:`expect` / :func:`violation` raise :class:`ClauseViolation`: the subject breaks that one clause. The
  check's other clauses were not reached ("stopped at" that clause).
- :func:`precondition` raises :class:`PreconditionFailed`: something the check relies on to judge anything (a
  state the SDK accepts, the start page shown, one active tab) is broken. The precondition's clause is blamed
  and the check's own clauses are "blocked by" it, never failed: one defect, one finding.
- :func:`not_implemented`: the subject does not have the member (or optional capability) the check needs.
- :func:`unverified`: the subject has the member, but the kit could not exercise it (no structured read to find a
  ref, a hint the driver ignored); the reason says what the driver must offer to make it checkable.
- :func:`not_provoked`: the check could not make the page do what it judges the driver on (a popup whose
  ``window.open`` never ran, a download that never started); nothing was learned about the clause.
- :func:`not_checked` (or raising :class:`EnvironmentProblem`): the machine or the harness failed (a browser that
  did not start, a desktop that is unavailable), so nothing was learned about the subject.

The four "could not judge" outcomes are :class:`CheckSkipped`, a pytest skip that carries its kind as data.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal, NoReturn

from _pytest.outcomes import Skipped

SkipKind = Literal["not_implemented", "unverified", "not_provoked", "not_checked"]

# What pytest's own skip line shows for each kind (the kit never reads it back).
_LABELS: dict[SkipKind, str] = {
    "not_implemented": "not implemented",
    "unverified": "unverified",
    "not_provoked": "could not provoke",
    "not_checked": "not checked",
}


class ClauseViolation(AssertionError):
    """A check found the subject breaking one named clause."""

    def __init__(self, clause_id: str, detail: str) -> None:
        super().__init__(f"[{clause_id}] {detail}")
        self.clause_id = clause_id
        self.detail = detail


class PreconditionFailed(ClauseViolation):
    """A clause the check relies on to judge anything is broken; the check's own clauses are blocked by it."""


class EnvironmentProblem(RuntimeError):
    """The machine or the harness, not the subject, kept a check from running (reported as "not checked")."""


class CheckSkipped(Skipped):
    """The check ended without judging its clauses; ``kind`` says why, as data.

    ``member`` names the implemented member an unverified check could not exercise, or the missing member of a
    not-implemented one.
    """

    def __init__(self, kind: SkipKind, detail: str, member: str | None = None) -> None:
        named = f"{member}: " if member and kind == "unverified" else ""
        super().__init__(f"driverkit {_LABELS[kind]}: {named}{detail}")
        self.kind: SkipKind = kind
        self.detail = detail
        self.member = member


def expect(condition: object, clause_id: str, detail: str) -> None:
    """Fail the running check on ``clause_id`` with ``detail`` unless ``condition`` holds."""
    if not condition:
        raise ClauseViolation(clause_id, detail)


def violation(clause_id: str, detail: str) -> NoReturn:
    raise ClauseViolation(clause_id, detail)


def precondition(condition: object, clause_id: str, detail: str) -> None:
    """Unless ``condition`` holds, blame ``clause_id`` and block the running check's own clauses."""
    if not condition:
        raise PreconditionFailed(clause_id, detail)


def precondition_failed(clause_id: str, detail: str) -> NoReturn:
    raise PreconditionFailed(clause_id, detail)


@contextmanager
def as_precondition() -> Iterator[None]:
    """Run a step the check only stands on (opening a tab to work in, say): a clause it breaks is a precondition.

    The helpers a step uses fail their own clause as usual; inside this block that failure blames the same clause
    but blocks the running check's clauses instead of reading as a finding of the check.
    """
    try:
        yield
    except PreconditionFailed:
        raise
    except ClauseViolation as broken:
        raise PreconditionFailed(broken.clause_id, broken.detail) from None


def not_implemented(what: str) -> NoReturn:
    """Skip the running check because the subject does not implement ``what`` (a member or capability)."""
    raise CheckSkipped("not_implemented", what, member=what)


def unverified(member: str, why: str) -> NoReturn:
    """Skip the running check because the kit could not exercise ``member``, which the subject implements.

    ``why`` says what was missing and what the driver must offer, e.g. "needs read_page to return BrowserReadV1
    so the kit can find a ref to click".
    """
    raise CheckSkipped("unverified", why, member=member)


def not_provoked(what: str) -> NoReturn:
    """Skip the running check because the page never did what the check judges the driver on.

    ``what`` says what did not happen and what the driver may have done to prevent it.
    """
    raise CheckSkipped("not_provoked", what)


def not_checked(why: str) -> NoReturn:
    """Skip the running check because the environment, not the subject, failed."""
    raise CheckSkipped("not_checked", why)
