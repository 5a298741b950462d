"""The clause registry: every contract clause the kit checks, with a stable ID and where it comes from.

A clause is one checkable requirement, paraphrased in the kit's words and cited by the title of the document it
comes from and that document's section heading (or, for the SDK's type declarations, the declaration's name).
The clause lists are data: one TOML file per part of the contract beside this module (browser clauses the
harness judges, what a browser driver observes, what it does; toolset; runner; computer; execution service). This
module defines the type, loads and validates the files, and gathers them, so a check can name a clause without
knowing which list holds it.
"""

from __future__ import annotations

import importlib.resources
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
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

# The clause files (``<name>.toml`` beside this module), in the order they are reported.
CLAUSE_FILES: Final[tuple[str, ...]] = (
    "browser_harness",
    "browser_observe",
    "browser_act",
    "toolset",
    "runner",
    "computer",
    "execution",
)


class UnknownClauseError(KeyError):
    """A check or a deviation named a clause ID that no clause list defines."""


class ClauseFileError(ValueError):
    """A clause file is missing or malformed: its clauses would silently vanish from every certificate and from
    ``driverkit clauses``, so the registry refuses to build and names the file and the entry at fault."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"clause file {name}.toml ({__name__}): {problem}")
        self.name = name


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
    # The clause file that defines it (``browser_act`` for conformance/clauses/browser_act.toml); not part of its
    # identity.
    file: str = field(default="", compare=False)

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


_REQUIRED_KEYS: Final = frozenset({"id", "document", "section", "summary"})
_OPTIONAL_KEYS: Final = frozenset({"member"})


def load_clauses(name: str) -> tuple[Clause, ...]:
    """The clauses of one clause file, in file order.

    The lists are data, not code: each ``[[clause]]`` entry has ``id``, ``document`` (a key of
    :data:`DOCUMENTS`), ``section``, ``summary`` and, for clauses about one member, ``member``.
    """
    resource = importlib.resources.files(__name__) / f"{name}.toml"
    if not resource.is_file():
        raise ClauseFileError(name, "the file does not exist")
    return parse_clauses(name, resource.read_text(encoding="utf-8"))


def parse_clauses(name: str, text: str) -> tuple[Clause, ...]:
    """The clauses in ``text``, the content of clause file ``name``; a malformed entry is a :class:`ClauseFileError`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ClauseFileError(name, f"not valid TOML: {error}") from None
    entries = data.pop("clause", None)
    if data:
        raise ClauseFileError(name, f"unexpected top-level keys {sorted(data)}: only [[clause]] entries belong here")
    if not isinstance(entries, list) or not entries:
        raise ClauseFileError(name, "it holds no [[clause]] entries")
    return tuple(_clause_from(name, index, entry) for index, entry in enumerate(entries, start=1))


def _clause_from(name: str, index: int, entry: dict[str, object]) -> Clause:
    where = f"[[clause]] number {index} ({entry.get('id', 'no id')})"
    missing = sorted(_REQUIRED_KEYS - entry.keys())
    unknown = sorted(entry.keys() - _REQUIRED_KEYS - _OPTIONAL_KEYS)
    if missing or unknown:
        raise ClauseFileError(name, f"{where} lacks {missing} or has unknown keys {unknown}")
    not_text = sorted(key for key, value in entry.items() if not isinstance(value, str) or not value.strip())
    if not_text:
        raise ClauseFileError(name, f"{where}: {not_text} must be non-empty strings")
    values = {key: str(value) for key, value in entry.items()}
    return Clause(
        values["id"], values["document"], values["section"], values["summary"], values.get("member"), file=name
    )


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
        _registry = ClauseRegistry(clause for name in CLAUSE_FILES for clause in load_clauses(name))
    return _registry


__all__ = [
    "CLAUSE_FILES",
    "DOCUMENTS",
    "Clause",
    "ClauseFileError",
    "ClauseRegistry",
    "Document",
    "UnknownClauseError",
    "load_clauses",
    "parse_clauses",
    "registry",
]
