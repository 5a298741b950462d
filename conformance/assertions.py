"""How a check says which clause it found broken, and how it says a clause could not be judged.

A check declares the clauses it covers with ``@pytest.mark.clause("BR-READ-001", ...)``. When it fails through
:func:`expect` (or by raising :class:`ClauseViolation`), the certificate blames exactly the named clause; any
other failure blames every clause the check declares.

Three ways a check ends without judging its clauses, each reported with its own status, never as a failure:

- :func:`not_implemented`: the subject does not have the member (or optional capability) the check needs.
- :func:`unverified`: the subject has the member, but the kit could not exercise it (no structured read to find a
  ref, a hint the driver ignored); the reason says what the driver must offer to make it checkable.
- :func:`not_checked` (or raising :class:`EnvironmentProblem`): the machine or the harness failed (a browser that
  did not start, a desktop that is unavailable), so nothing was learned about the subject.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NoReturn

import pytest

SkipKind = Literal["not_implemented", "unverified", "not_checked"]
_PREFIXES: dict[SkipKind, str] = {
    "not_implemented": "driverkit: not implemented: ",
    "unverified": "driverkit: unverified: ",
    "not_checked": "driverkit: not checked: ",
}
NOT_IMPLEMENTED_PREFIX = _PREFIXES["not_implemented"]
NOT_CHECKED_PREFIX = _PREFIXES["not_checked"]


class ClauseViolation(AssertionError):
    """A check found the subject breaking one named clause."""

    def __init__(self, clause_id: str, detail: str) -> None:
        super().__init__(f"[{clause_id}] {detail}")
        self.clause_id = clause_id
        self.detail = detail


class EnvironmentProblem(RuntimeError):
    """The machine or the harness, not the subject, kept a check from running (reported as "not checked")."""


def expect(condition: object, clause_id: str, detail: str) -> None:
    """Fail the running check on ``clause_id`` with ``detail`` unless ``condition`` holds."""
    if not condition:
        raise ClauseViolation(clause_id, detail)


def violation(clause_id: str, detail: str) -> NoReturn:
    raise ClauseViolation(clause_id, detail)


def not_implemented(what: str) -> NoReturn:
    """Skip the running check because the subject does not implement ``what`` (a member or capability)."""
    pytest.skip(_PREFIXES["not_implemented"] + what)


def unverified(member: str, why: str) -> NoReturn:
    """Skip the running check because the kit could not exercise ``member``, which the subject implements.

    ``why`` says what was missing and what the driver must offer, e.g. "needs read_page to return BrowserReadV1
    so the kit can find a ref to click".
    """
    pytest.skip(f"{_PREFIXES['unverified']}{member}: {why}")


def not_checked(why: str) -> NoReturn:
    """Skip the running check because the environment, not the subject, failed."""
    pytest.skip(_PREFIXES["not_checked"] + why)


@dataclass(frozen=True)
class SkipReason:
    """A parsed kit skip reason: which kind, the member it names (if any) and the rest."""

    kind: SkipKind
    member: str | None
    detail: str


def parse_skip_reason(reason: str) -> SkipReason | None:
    """The kit's own skip reason inside a pytest skip message, or None for an ordinary skip."""
    for kind, prefix in _PREFIXES.items():
        marker = reason.find(prefix)
        if marker < 0:
            continue
        text = reason[marker + len(prefix) :].strip()
        if kind == "not_implemented":
            return SkipReason(kind, text, text)
        if kind == "unverified":
            member, _, why = text.partition(": ")
            return SkipReason(kind, member, why or member)
        return SkipReason(kind, None, text)
    return None


def skip_reason_member(reason: str) -> str | None:
    """The member named by a :func:`not_implemented` skip reason, or None for any other skip."""
    parsed = parse_skip_reason(reason)
    return parsed.member if parsed and parsed.kind == "not_implemented" else None
