"""The contract documents as units a statement map can point at, without the kit holding a copy of their text.

The kit may not ship the documents' sentences, yet the coverage map must notice when a document changes under it.
So each document is cut into *units* - a sentence of prose, a table row, a list item, or one whole declaration of
the type declarations - and each unit is known by a short fingerprint of its text. The statement map stores
fingerprints; when the documents are at hand (``--documents DIR`` or ``DRIVERKIT_DOCUMENTS``) the kit cuts them the
same way and reports every fingerprint that no longer occurs (the sentence changed) and every unit the map does
not account for (a sentence was added).

The cut only has to be deterministic, not linguistically perfect: a sentence split in an odd place is still the
same two units next time. The rules follow each document's form: Markdown with fenced code (the Python guide),
plain text with bare heading lines and unfenced code (the driver and code-execution guides), and TypeScript
declarations whose sections are the declared names.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from conformance.clauses import DOCUMENTS

# Where the documents may be found when no folder is given: the environment variable, as a folder holding files
# named ``<key>_<anything>.txt`` (the layout the contract is distributed in).
DOCUMENTS_VARIABLE: Final = "DRIVERKIT_DOCUMENTS"


@dataclass(frozen=True)
class Unit:
    """One addressable piece of a document: ``text`` lives in memory only, the map keeps ``fingerprint``."""

    document: str
    section: str
    text: str

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.text)


class DocumentsNotFoundError(FileNotFoundError):
    """A documents folder was named but lacks a document the map cites."""


def fingerprint(text: str) -> str:
    """Twelve hex digits of SHA-256 over the text with its whitespace collapsed: enough to tell ~1,000 units apart."""
    normal = " ".join(text.split())
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:12]


def find_documents(folder: Path | None = None) -> dict[str, str]:
    """The documents' texts by key, read from ``folder`` or ``$DRIVERKIT_DOCUMENTS``; without either, only the type
    declarations, which ship in the npm openai the kit runs (empty when that is not installed either).

    A folder that is named but lacks one of the four documents is an error naming the missing key: a coverage
    report over part of the contract would read as complete.
    """
    if folder is None:
        configured = os.environ.get(DOCUMENTS_VARIABLE)
        if not configured:
            declarations = installed_declarations()
            return {DECLARATIONS_KEY: declarations.read_text(encoding="utf-8")} if declarations else {}
        folder = Path(configured)
    if not folder.is_dir():
        raise DocumentsNotFoundError(f"documents folder {folder} does not exist")
    texts: dict[str, str] = {}
    for key in DOCUMENTS:
        matches = sorted(folder.glob(f"{key}_*.txt"))
        if len(matches) != 1:
            found = ", ".join(path.name for path in matches) or "none"
            raise DocumentsNotFoundError(f"{folder} must hold exactly one {key}_*.txt document (found {found})")
        texts[key] = matches[0].read_text(encoding="utf-8")
    return texts


DECLARATIONS_KEY: Final = next(key for key, document in DOCUMENTS.items() if document.declarations)


def installed_declarations() -> Path | None:
    """``helpers/browser.d.ts`` of the npm openai the kit's Node side imports, if it is installed."""
    from conformance.node.bridge import NodeHostError
    from conformance.node.sdk.broker import openai_folder, sdk_module

    try:
        chosen = openai_folder()
    except NodeHostError:
        return None
    candidates = [chosen] if chosen else [folder / "node_modules" / "openai" for folder in sdk_module().parents]
    for package in candidates:
        declarations = package / "helpers" / "browser.d.ts"
        if declarations.is_file():
            return declarations
    return None


def units(key: str, text: str) -> list[Unit]:
    """Every unit of document ``key``, in document order."""
    if DOCUMENTS[key].declarations:
        return list(_declaration_units(key, text))
    if text.lstrip().startswith("#"):
        return list(_markdown_units(key, text))
    return list(_plain_units(key, text))


# Sentences end at ., ! or ? (maybe closed by a quote, bracket or backtick) before a space and a capital, a
# backtick or a quote. Abbreviations the documents use do not end sentences.
_SENTENCE_END: Final = re.compile(r"(?<=[.!?])[\"'”)\]`]*\s+(?=[A-Z`\"“(])")
_ABBREVIATIONS: Final = ("e.g.", "i.e.", "etc.", "vs.")


def sentences(paragraph: str) -> list[str]:
    """``paragraph`` cut into sentences (whitespace collapsed)."""
    text = " ".join(paragraph.split())
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        candidate = text[start : match.start()].rstrip()
        if candidate.endswith(_ABBREVIATIONS):
            continue
        pieces.append(text[start : match.end()].strip())
        start = match.end()
    if text[start:].strip():
        pieces.append(text[start:].strip())
    return [piece for piece in pieces if piece]


def _paragraph_units(key: str, section: str, paragraph: str) -> Iterator[Unit]:
    stripped = paragraph.strip()
    if not stripped:
        return
    if stripped.startswith("|"):
        if not re.fullmatch(r"\|[\s:|-]*", stripped):  # a table's separator row says nothing
            yield Unit(key, section, stripped)
        return
    for sentence in sentences(stripped):
        yield Unit(key, section, sentence)


def _markdown_units(key: str, text: str) -> Iterator[Unit]:
    section = ""
    paragraph: list[str] = []
    fenced = False

    def flush() -> Iterator[Unit]:
        if paragraph:
            yield from _paragraph_units(key, section, " ".join(paragraph))
            paragraph.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            yield from flush()
            fenced = not fenced
            continue
        if fenced:
            continue
        if stripped.startswith("#"):
            yield from flush()
            section = stripped.lstrip("#").strip()
        elif not stripped:
            yield from flush()
        elif _LIST_ITEM.match(stripped) or stripped.startswith("|"):
            # A list item or table row is a unit of its own even when the next line continues the list.
            yield from flush()
            paragraph.append(stripped)
        else:
            paragraph.append(stripped)
    yield from flush()


_LIST_ITEM: Final = re.compile(r"([-*+]|\d+[.)])\s+")
# A plain-text heading: a short capitalised phrase with no sentence punctuation or code characters.
_PLAIN_HEADING: Final = re.compile(r"[A-Z][A-Za-z0-9 ’'\-,]*")
# Code the plain documents carry unfenced: a line that starts like a statement or ends like one that continues.
_CODE_START: Final = re.compile(
    r"(import|export|const|let|var|async|await|return|if|else|elif|def|class|from|for|while|try|except|finally|"
    r"with|throw|raise|print|console|function|new|type|interface)\b|[.})\]/*#@\"']"
)


def _plain_is_prose(line: str) -> bool:
    if line.startswith("|"):
        return True
    if _CODE_START.match(line) and not _LIST_ITEM.match(line):
        return False
    words = re.findall(r"[A-Za-z]{2,}", line)
    return len(words) >= 3 and bool(re.search(r"[.:!?][\"'”)\]`]*$", line))


def _plain_units(key: str, text: str) -> Iterator[Unit]:
    section = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        words = stripped.split()
        if _PLAIN_HEADING.fullmatch(stripped) and len(words) <= 12:
            section = stripped
            continue
        if _plain_is_prose(stripped):
            if _LIST_ITEM.match(stripped):
                yield Unit(key, section, stripped)
            else:
                yield from _paragraph_units(key, section, stripped)


# A top-level declaration of the type declarations starts at column 0 with one of these and runs until the next.
_DECLARATION: Final = re.compile(
    r"(?:export\s+)?(?:declare\s+)?(?:abstract\s+)?(?:type|interface|const|class|function)\s+([A-Za-z_$][\w$]*)"
)


def _declaration_units(key: str, text: str) -> Iterator[Unit]:
    """Units of the type declarations, named by the declared name: each member of a declared object type (a
    line indented one level starts the next), or the whole declaration when it has no members. Imports and
    re-exports carry no requirement and are left out."""
    name: str | None = None
    header: list[str] = []
    member: list[str] = []
    members_seen = False

    def flush_member() -> Iterator[Unit]:
        if name is not None and member:
            yield Unit(key, name, "\n".join(member))
        member.clear()

    def flush_declaration() -> Iterator[Unit]:
        nonlocal members_seen
        yield from flush_member()
        if name is not None and not members_seen and header:
            yield Unit(key, name, "\n".join(header))
        header.clear()
        members_seen = False

    for line in text.splitlines():
        if line and not line[0].isspace() and not line.startswith(("}", ")", "]", "/", "*")):
            yield from flush_declaration()
            match = _DECLARATION.match(line)
            name = match.group(1) if match else None
            header.append(line)
        elif name is None:
            continue
        elif _MEMBER_START.match(line):
            yield from flush_member()
            members_seen = True
            member.append(line)
        elif member:
            member.append(line)
        else:
            header.append(line)
    yield from flush_declaration()


# A member of a declared object type: one level of indentation, then a (readonly) name, a call or an index.
_MEMBER_START: Final = re.compile(r"    (?! )(?:readonly\s+)?(?:[A-Za-z_$\[\"'(<]|\*\*|/\*\*)")


def unit_listing(texts: dict[str, str], keys: tuple[str, ...] = ()) -> Iterator[str]:
    """Lines ``key | section | fingerprint | text`` for every unit: the worksheet a map author accounts for."""
    for key, text in texts.items():
        if keys and key not in keys:
            continue
        for unit in units(key, text):
            shown = unit.text if not DOCUMENTS[key].declarations else unit.text.splitlines()[0] + " ..."
            yield f"{key} | {unit.section} | {unit.fingerprint} | {shown}"


__all__ = [
    "DECLARATIONS_KEY",
    "DOCUMENTS_VARIABLE",
    "DocumentsNotFoundError",
    "Unit",
    "find_documents",
    "fingerprint",
    "installed_declarations",
    "sentences",
    "unit_listing",
    "units",
]
