"""How a check says which clause it found broken, and how it says a member is not implemented.

A check declares the clauses it covers with ``@pytest.mark.clause("BR-READ-001", ...)``. When it fails through
:func:`expect` (or by raising :class:`ClauseViolation`), the certificate blames exactly the named clause; any
other failure blames every clause the check declares. :func:`not_implemented` skips a check in a way the
certificate reports as "not implemented" rather than as a failure.
"""

from __future__ import annotations

from typing import NoReturn

import pytest

NOT_IMPLEMENTED_PREFIX = "driverkit: not implemented: "


class ClauseViolation(AssertionError):
    """A check found the subject breaking one named clause."""

    def __init__(self, clause_id: str, detail: str) -> None:
        super().__init__(f"[{clause_id}] {detail}")
        self.clause_id = clause_id
        self.detail = detail


def expect(condition: object, clause_id: str, detail: str) -> None:
    """Fail the running check on ``clause_id`` with ``detail`` unless ``condition`` holds."""
    if not condition:
        raise ClauseViolation(clause_id, detail)


def violation(clause_id: str, detail: str) -> NoReturn:
    raise ClauseViolation(clause_id, detail)


def not_implemented(what: str) -> NoReturn:
    """Skip the running check because the subject does not implement ``what`` (a member or capability)."""
    pytest.skip(NOT_IMPLEMENTED_PREFIX + what)


def skip_reason_member(reason: str) -> str | None:
    """The member named by a :func:`not_implemented` skip reason, or None for an ordinary skip."""
    marker = reason.find(NOT_IMPLEMENTED_PREFIX)
    if marker < 0:
        return None
    return reason[marker + len(NOT_IMPLEMENTED_PREFIX) :].strip()
