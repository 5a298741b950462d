"""Clauses that are paths of one requirement: when several of them fail, "What to fix first" lists one cause.

A clause is one observable consequence of the documents, and the kit checks each on its own, so a driver learns
exactly where it falls short. Some requirements, though, are stated once and then enumerated over the ways a
driver can meet or miss them; a driver that misses several of those ways usually has one thing to fix. Each
entry below is such a requirement, with the document statement that makes it one:

- The driver's own network policy. "Browser and desktop drivers > Restrict URLs" asks for a network policy
  enforced in the browser or its environment, because the URL callback sees only requested navigations and not
  redirects, popups, page scripts or embedded resources; "Browser and mixed Responses tools > Confirmation,
  navigation, and recovery" makes the driver enforce which domains the browser reaches and names the paths it
  must hold on: redirects, links, popups, subresources and downloads. BR-NET-001 to BR-NET-008 check that one
  policy on each path (and a navigation it refuses). An allow-list enforced in ``navigate`` alone fails five of
  them for one reason.

Clauses stay separate everywhere else (statuses, reasons, the verdict): grouping only merges their entries in
"What to fix first", the first of them standing for the cause and the others listed with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Requirement:
    """One requirement of the documents that the kit checks as several clauses, one per path."""

    name: str
    clauses: tuple[str, ...]


NETWORK_POLICY: Final = Requirement(
    "the driver's own network policy",
    tuple(f"BR-NET-{number:03d}" for number in range(1, 9)),
)
REQUIREMENTS: Final = (NETWORK_POLICY,)


def requirement_of(clause_id: str) -> Requirement | None:
    """The requirement ``clause_id`` is one path of, or None for a clause that stands alone."""
    return next((requirement for requirement in REQUIREMENTS if clause_id in requirement.clauses), None)
