"""Placeholder until the clause list lands."""

from conformance.clauses import Clause

CLAUSES: tuple[Clause, ...] = ()
