"""The clause registry: every contract clause the kit checks, with a stable ID and where it comes from.

A clause is one checkable requirement, paraphrased in the kit's words and cited by the title of the document it
comes from and that document's section heading (or, for the SDK's type declarations, the declaration's name).
Clause lists live one module per part of the contract (``browser``, ``toolset``, ``runner``, ``computer``);
this module only defines the type and gathers them, so a check can name a clause without knowing which list
holds it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Document:
    """A document the contract comes from, as a reader finds it: by its own title.

    ``declarations`` marks the SDK's type declarations, which have no headings: a clause from them names the
    declared type (``BrowserState``), or ``members`` (the member table) with the member it is about.
    """

    title: str
    declarations: bool = False


# The one table from a clause's source key to the document it cites.
DOCUMENTS: Final[dict[str, Document]] = {
    "000": Document("Browser and mixed Responses tools"),
    "002": Document("Browser and desktop drivers"),
    "003": Document("Use your own UI tools"),
    "004": Document("OpenAI Node SDK browser type declarations", declarations=True),
}

# The modules that hold clause lists, in the order they are reported.
PART_MODULES: Final[tuple[str, ...]] = ("browser", "toolset", "runner", "computer")


class UnknownClauseError(KeyError):
    """A check or a deviation named a clause ID that no clause list defines."""


class MissingClausePartError(ImportError):
    """A part named in :data:`PART_MODULES` has no clause list: its clauses would silently vanish from every
    certificate and from ``driverkit clauses``, so the registry refuses to build."""

    def __init__(self, part: str, problem: str) -> None:
        super().__init__(f"clause part {part!r} ({__name__}.{part}): {problem}")
        self.part = part


@dataclass(frozen=True)
class Clause:
    """One requirement of the contract.

    ``id`` is stable across kit releases (``BR-READ-004``); ``spec`` is a key of :data:`DOCUMENTS`;
    ``section`` is the heading it comes from (a declaration name in the type declarations); ``summary``
    paraphrases it in one line; ``member`` names the browser member or computer method it applies to, or is
    ``None`` for clauses about the whole driver.
    """

    id: str
    spec: str
    section: str
    summary: str
    member: str | None = None

    @property
    def source(self) -> str:
        """Where a reader finds the clause: ``Browser and desktop drivers > Browser driver contract``."""
        document = DOCUMENTS[self.spec]
        place = self.section
        if document.declarations and self.section == "members" and self.member:
            place = f"members.{self.member}"
        return f"{document.title} > {place}"

    @property
    def part(self) -> str:
        """The family prefix, e.g. ``BR`` for browser driver clauses."""
        return self.id.split("-", 1)[0]


def _load_part(name: str) -> tuple[Clause, ...]:
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as error:
        if error.name == f"{__name__}.{name}":
            raise MissingClausePartError(name, "the module does not exist") from None
        raise
    clauses = getattr(module, "CLAUSES", None)
    if not isinstance(clauses, tuple) or not all(isinstance(clause, Clause) for clause in clauses):
        raise MissingClausePartError(name, "the module defines no CLAUSES tuple of Clause")
    return clauses


class ClauseRegistry:
    """All clause lists, indexed by ID. IDs must be unique across lists."""

    def __init__(self, clauses: Iterable[Clause]) -> None:
        self._by_id: dict[str, Clause] = {}
        for clause in clauses:
            if clause.id in self._by_id:
                raise ValueError(f"duplicate clause ID {clause.id}")
            if clause.spec not in DOCUMENTS:
                raise ValueError(f"clause {clause.id} cites unknown spec {clause.spec!r}")
            self._by_id[clause.id] = clause

    def __iter__(self) -> Iterator[Clause]:
        return iter(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, clause_id: object) -> bool:
        return clause_id in self._by_id

    def get(self, clause_id: str) -> Clause:
        try:
            return self._by_id[clause_id]
        except KeyError:
            raise UnknownClauseError(clause_id) from None

    def with_prefix(self, *prefixes: str) -> list[Clause]:
        return [clause for clause in self if clause.part in prefixes]


_registry: ClauseRegistry | None = None


def registry() -> ClauseRegistry:
    """The registry of every clause list the kit ships (built once)."""
    global _registry
    if _registry is None:
        _registry = ClauseRegistry(clause for part in PART_MODULES for clause in _load_part(part))
    return _registry


__all__ = [
    "DOCUMENTS",
    "Clause",
    "ClauseRegistry",
    "Document",
    "MissingClausePartError",
    "UnknownClauseError",
    "registry",
]
