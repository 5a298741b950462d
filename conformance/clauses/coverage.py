"""The coverage map: every normative statement of the contract documents, and the clauses that check it.

A clause list says what the kit checks; this map says what the documents require, so the two can be compared.
Each statement is paraphrased in the kit's words, placed by document and section, pinned to the units of the
document it comes from by fingerprint (see :mod:`conformance.clauses.documents`), and either mapped to the clauses
that check it, marked untestable with why (it depends on a real model, say), or left as a gap the kit reports.
Units that state no requirement (explanations, examples, advice) are listed as informative, so that a document
unit the map does not account for at all can only be new text.

The map is data: ``statements/*.toml`` beside this module, one file per part of a document::

    document = "002"          # a key of DOCUMENTS
    prefix = "DRV"            # statement IDs of this file start with it

    [[statement]]
    id = "DRV-014"
    section = "Browser driver contract"
    units = ["3f2a9c0d81be"]  # fingerprints of the sentences it paraphrases
    says = "Exactly one tab is active whenever any tab exists."
    clauses = ["BR-STATE-003"]    # or: untestable = "why"; neither: a gap

    [[informative]]
    section = "Browser driver contract"
    units = ["...", "..."]
"""

from __future__ import annotations

import importlib.resources
import sys
import tomllib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from conformance.clauses import DOCUMENTS, ClauseRegistry, registry
from conformance.clauses.documents import DocumentsNotFoundError, find_documents
from conformance.clauses.documents import units as document_units

Status = Literal["covered", "untestable", "gap"]

STATEMENTS_PACKAGE: Final = f"{__package__}.statements"


class StatementFileError(ValueError):
    """A statement file is malformed; the coverage report would silently lose or invent statements."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"statement file {name}: {problem}")


@dataclass(frozen=True)
class Statement:
    """One requirement a document states, in the kit's words."""

    id: str
    document: str
    section: str
    units: tuple[str, ...]
    says: str
    clauses: tuple[str, ...] = ()
    untestable: str | None = None

    @property
    def status(self) -> Status:
        if self.clauses:
            return "covered"
        return "untestable" if self.untestable else "gap"

    @property
    def source(self) -> str:
        return f"{DOCUMENTS[self.document].title} > {self.section}"


@dataclass(frozen=True)
class StatementMap:
    statements: tuple[Statement, ...]
    # (document, section) -> fingerprints of units that state no requirement.
    informative: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)

    def accounted(self) -> set[tuple[str, str, str]]:
        """Every (document, section, fingerprint) the map names, as a statement's unit or as informative."""
        named = {(s.document, s.section, unit) for s in self.statements for unit in s.units}
        named |= {(doc, section, unit) for (doc, section), found in self.informative.items() for unit in found}
        return named

    def by_status(self, status: Status) -> list[Statement]:
        return [statement for statement in self.statements if statement.status == status]

    def clauses_citing(self) -> dict[str, list[str]]:
        """Clause ID -> IDs of the statements it checks."""
        cited: dict[str, list[str]] = {}
        for statement in self.statements:
            for clause_id in statement.clauses:
                cited.setdefault(clause_id, []).append(statement.id)
        return cited


_STATEMENT_KEYS: Final = frozenset({"id", "section", "units", "says", "clauses", "untestable"})


def parse_statements(name: str, text: str, clauses: ClauseRegistry) -> StatementMap:
    """The statements of one file; every malformed entry is a :class:`StatementFileError` naming it."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise StatementFileError(name, f"not valid TOML: {error}") from None
    document, prefix = data.pop("document", None), data.pop("prefix", None)
    if document not in DOCUMENTS:
        raise StatementFileError(name, f"document must be one of {sorted(DOCUMENTS)}, not {document!r}")
    if not isinstance(prefix, str) or not prefix:
        raise StatementFileError(name, "prefix must be a non-empty string")
    entries, informative_entries = data.pop("statement", []), data.pop("informative", [])
    if data:
        raise StatementFileError(name, f"unexpected top-level keys {sorted(data)}")
    statements = tuple(
        _statement(name, index, entry, document, prefix, clauses) for index, entry in enumerate(entries, start=1)
    )
    informative: dict[tuple[str, str], frozenset[str]] = {}
    for index, entry in enumerate(informative_entries, start=1):
        section, found = entry.get("section"), entry.get("units")
        if not isinstance(section, str) or not _fingerprints(found) or set(entry) - {"section", "units"}:
            raise StatementFileError(name, f"[[informative]] number {index} needs a section and a list of units")
        key = (document, section)
        informative[key] = informative.get(key, frozenset()) | frozenset(found)
    return StatementMap(statements, informative)


def _fingerprints(value: object) -> list[str] | None:
    if not isinstance(value, list) or not value:
        return None
    if not all(isinstance(item, str) and len(item) == 12 for item in value):
        return None
    return [str(item) for item in value]


def _statement(
    name: str, index: int, entry: dict[str, object], document: str, prefix: str, clauses: ClauseRegistry
) -> Statement:
    where = f"[[statement]] number {index} ({entry.get('id', 'no id')})"
    unknown = sorted(entry.keys() - _STATEMENT_KEYS)
    if unknown:
        raise StatementFileError(name, f"{where} has unknown keys {unknown}")
    identifier, section, says = entry.get("id"), entry.get("section"), entry.get("says")
    for key, value in (("id", identifier), ("section", section), ("says", says)):
        if not isinstance(value, str) or not value.strip():
            raise StatementFileError(name, f"{where}: {key} must be a non-empty string")
    assert isinstance(identifier, str) and isinstance(section, str) and isinstance(says, str)
    if not identifier.startswith(f"{prefix}-"):
        raise StatementFileError(name, f"{where}: the ID must start with the file's prefix {prefix}-")
    found = _fingerprints(entry.get("units"))
    if found is None:
        raise StatementFileError(name, f"{where}: units must list 12-digit fingerprints of the document's units")
    cited = entry.get("clauses", [])
    if not isinstance(cited, list) or not all(isinstance(item, str) for item in cited):
        raise StatementFileError(name, f"{where}: clauses must be a list of clause IDs")
    unknown_clauses = [str(item) for item in cited if item not in clauses]
    if unknown_clauses:
        raise StatementFileError(name, f"{where} names clauses no clause list defines: {unknown_clauses}")
    untestable = entry.get("untestable")
    if untestable is not None and (not isinstance(untestable, str) or not untestable.strip()):
        raise StatementFileError(name, f"{where}: untestable must say why")
    if cited and untestable:
        raise StatementFileError(name, f"{where} is both mapped to clauses and marked untestable")
    return Statement(identifier, document, section, tuple(found), says, tuple(str(c) for c in cited), untestable)


def load_map(clauses: ClauseRegistry | None = None) -> StatementMap:
    """Every statement file the kit ships, merged; statement IDs must be unique across files."""
    clauses = clauses if clauses is not None else registry()
    folder = importlib.resources.files(STATEMENTS_PACKAGE)
    statements: list[Statement] = []
    informative: dict[tuple[str, str], frozenset[str]] = {}
    for resource in sorted(folder.iterdir(), key=lambda item: item.name):
        if not resource.name.endswith(".toml"):
            continue
        part = parse_statements(resource.name, resource.read_text(encoding="utf-8"), clauses)
        statements.extend(part.statements)
        for key, found in part.informative.items():
            informative[key] = informative.get(key, frozenset()) | found
    repeated = sorted(identifier for identifier, count in Counter(s.id for s in statements).items() if count > 1)
    if repeated:
        raise StatementFileError("statements/", f"statement IDs used twice: {repeated}")
    return StatementMap(tuple(statements), informative)


@dataclass(frozen=True)
class Drift:
    """How the map and the documents disagree: units the map names that the documents no longer hold (changed
    text), and units of the documents the map does not account for (new text)."""

    missing: list[tuple[str, str, str]]  # (statement ID or "informative", section, fingerprint)
    unaccounted: list[tuple[str, str, str]]  # (document, section, fingerprint)

    @property
    def clean(self) -> bool:
        return not self.missing and not self.unaccounted


def compare_with_documents(statement_map: StatementMap, texts: dict[str, str]) -> Drift:
    """Where ``statement_map`` and the documents in ``texts`` (key -> text) disagree."""
    present = {(u.document, u.section, u.fingerprint) for key, text in texts.items() for u in document_units(key, text)}
    missing: list[tuple[str, str, str]] = []
    for statement in statement_map.statements:
        if statement.document not in texts:
            continue
        for unit in statement.units:
            if (statement.document, statement.section, unit) not in present:
                missing.append((statement.id, statement.section, unit))
    for (document, section), found in sorted(statement_map.informative.items()):
        if document in texts:
            missing.extend(
                ("informative", section, unit) for unit in sorted(found - _units_in(present, document, section))
            )
    accounted = statement_map.accounted()
    unaccounted = [
        (u.document, u.section, u.fingerprint)
        for key, text in texts.items()
        for u in document_units(key, text)
        if (u.document, u.section, u.fingerprint) not in accounted
    ]
    return Drift(missing, list(dict.fromkeys(unaccounted)))


def _units_in(present: Iterable[tuple[str, str, str]], document: str, section: str) -> set[str]:
    return {unit for doc, place, unit in present if doc == document and place == section}


def clauses_without_statements(statement_map: StatementMap, clauses: ClauseRegistry | None = None) -> list[str]:
    """Clause IDs no statement maps to: a clause must check something the documents say."""
    cited = statement_map.clauses_citing()
    return [clause.id for clause in (clauses if clauses is not None else registry()) if clause.id not in cited]


def coverage_lines(statement_map: StatementMap, drift: Drift | None) -> list[str]:
    """The ``driverkit clauses --coverage`` report: totals, then every gap and every untestable statement."""
    total = len(statement_map.statements)
    covered, untestable, gaps = (statement_map.by_status(status) for status in ("covered", "untestable", "gap"))
    testable = len(covered) + len(gaps)
    lines = [
        f"{total} normative statements in the contract documents: {len(covered)} covered by clauses, "
        f"{len(untestable)} untestable, {len(gaps)} testable but not covered "
        f"({(100 * len(covered) // testable) if testable else 100}% of the testable ones covered)",
    ]
    by_document = Counter(statement.document for statement in statement_map.statements)
    for key, document in DOCUMENTS.items():
        in_document = [s for s in statement_map.statements if s.document == key]
        counts = Counter(s.status for s in in_document)
        lines.append(
            f"  {document.title}: {by_document[key]} statements, {counts['covered']} covered, "
            f"{counts['untestable']} untestable, {counts['gap']} gaps"
        )
    unmapped = clauses_without_statements(statement_map)
    lines.append(f"{len(registry())} clauses, {len(registry()) - len(unmapped)} of them citing a statement")
    if gaps:
        lines += ["", "Testable statements no clause covers:"]
        lines += [f"  {s.id}: {s.says}  ({s.source})" for s in gaps]
    if unmapped:
        lines += ["", "Clauses that cite no statement:"]
        lines += [f"  {clause_id}" for clause_id in unmapped]
    if untestable:
        lines += ["", "Untestable statements, and why:"]
        lines += [f"  {s.id}: {s.says}  ({s.source})\n    why: {s.untestable}" for s in untestable]
    if drift is None:
        lines += ["", "The documents were not given (--documents DIR): the map was not checked against their text."]
    elif drift.clean:
        lines += ["", "The map matches the documents: every unit is accounted for and every fingerprint is found."]
    else:
        lines += [
            "",
            f"The documents changed: {len(drift.missing)} mapped units no longer found, "
            f"{len(drift.unaccounted)} units of the documents not accounted for (--worksheet lists them).",
        ]
        lines += [f"  not found: {owner} ({section}) {unit}" for owner, section, unit in drift.missing]
    return lines


def coverage_command(folder: Path | None, *, worksheet: bool) -> int:
    """``driverkit clauses --coverage``: exit 0 when every testable statement is covered, every clause cites a
    statement and (documents given) the map matches them; 1 otherwise, so CI can hold the line."""
    try:
        statement_map = load_map()
        texts = find_documents(folder)
    except (StatementFileError, DocumentsNotFoundError) as error:
        print(f"driverkit clauses: {error}", file=sys.stderr)
        return 2
    drift = compare_with_documents(statement_map, texts) if texts else None
    if worksheet:
        if drift is None:
            print("driverkit clauses: --worksheet needs the documents (--documents DIR)", file=sys.stderr)
            return 2
        wanted = set(drift.unaccounted)
        for key, text in texts.items():
            for unit in document_units(key, text):
                if (unit.document, unit.section, unit.fingerprint) in wanted:
                    print(f"{key} | {unit.section} | {unit.fingerprint} | {' '.join(unit.text.split())}")
        return 0
    print("\n".join(coverage_lines(statement_map, drift)))
    complete = not statement_map.by_status("gap") and not clauses_without_statements(statement_map)
    return 0 if complete and (drift is None or drift.clean) else 1


__all__ = [
    "Drift",
    "Statement",
    "StatementFileError",
    "StatementMap",
    "clauses_without_statements",
    "compare_with_documents",
    "coverage_command",
    "coverage_lines",
    "load_map",
    "parse_statements",
]
