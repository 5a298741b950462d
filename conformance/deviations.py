"""Known deviations: where an installed SDK version disagrees with the documents.

Checks are written to the documents. When an SDK version does something else, the disagreement is recorded
in ``conformance/known_deviations/<openai version>.toml`` and the named checks run as ``xfail(strict=True)``:
they still run, an expected failure is reported as such, and a check that starts passing (the SDK was fixed)
fails the run so the entry gets removed.

File format (TOML, one ``[[deviation]]`` table per entry, every key required)::

    [[deviation]]
    id = "DEV-TS-001"          # unique within the file, stable across edits
    clause = "TS-CONF-009"     # the clause the SDK breaks; must exist in conformance/clauses
    tests = [                  # checks that fail because of it, relative to conformance/contracts/
        "toolset/check_confirmation.py::test_callbacks_must_match_the_toolset_flavour",
        "toolset/check_confirmation.py::test_only_exactly_true_approves[sync-one-confirm]",
    ]
    sdk = "One line on what this SDK version does instead."
    fixed_in = "3.36.1"        # optional: the first release that conforms again; from it on the entry lapses

A test named without ``[...]`` covers every parametrization of it; with ``[...]`` exactly that one. Each
named check must declare the entry's clause with ``@pytest.mark.clause``.

Which file applies: the one for the newest version not newer than the installed SDK, so known deviations
carry over to an upgraded SDK until reviewed (a fixed one then shows up as a strict-xfail failure). With no
such file there are no known deviations. An entry with ``fixed_in`` applies only below that version, so a fix
released between two files needs no copy of the older file. Malformed files raise :class:`DeviationFileError`
naming the file and the entry.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Final, Protocol

import pytest

from conformance.clauses import registry

DEVIATIONS_DIR: Final[Path] = Path(__file__).parent / "known_deviations"
CONTRACTS_DIR: Final[Path] = Path(__file__).parent / "contracts"
REASON_PREFIX: Final[str] = "known deviation "
DEVIATION_MARKER: Final = pytest.mark.known_deviation
_KEYS: Final[frozenset[str]] = frozenset({"id", "clause", "tests", "sdk"})
_OPTIONAL_KEYS: Final[frozenset[str]] = frozenset({"fixed_in"})
_TEST_PATTERN: Final = re.compile(r"^[\w./-]+\.py::[\w.]+(\[[^\]]*\])?$")
_VERSION: Final = re.compile(r"^\d+(\.\d+)*$")


class DeviationFileError(ValueError):
    """A known-deviation file is malformed; the message names the file and the entry (with its line)."""


@dataclass(frozen=True)
class Deviation:
    """One recorded disagreement between an SDK version and the documents."""

    id: str
    clause: str
    tests: tuple[str, ...]
    sdk: str
    source: str
    fixed_in: str | None = None

    def applies_to(self, version: str) -> bool:
        """Whether SDK ``version`` still has this deviation (it is older than the release that fixed it)."""
        return self.fixed_in is None or _version_key(version) < _version_key(self.fixed_in)

    @property
    def reason(self) -> str:
        return f"{REASON_PREFIX}{self.id} ({self.clause}): {self.sdk}"


class _Item(Protocol):
    """The parts of a collected pytest item this module needs."""

    @property
    def nodeid(self) -> str: ...

    @property
    def path(self) -> Path: ...

    def add_marker(self, marker: str | pytest.MarkDecorator, append: bool = True) -> None: ...

    def iter_markers(self, name: str | None = None) -> Iterable[pytest.Mark]: ...


def installed_sdk_version() -> str:
    return metadata.version("openai")


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def deviation_file(version: str, directory: Path | None = None) -> Path | None:
    """The deviation file that applies to SDK ``version`` (newest not newer than it), or None."""
    directory = directory or DEVIATIONS_DIR
    if not _VERSION.match(version):
        raise DeviationFileError(f"cannot compare SDK version {version!r} with deviation files")
    candidates: list[tuple[tuple[int, ...], Path]] = []
    for path in sorted(directory.glob("*.toml")) if directory.is_dir() else []:
        if not _VERSION.match(path.stem):
            raise DeviationFileError(f"{path}: file name must be an openai version such as 3.57.0.toml")
        if _version_key(path.stem) <= _version_key(version):
            candidates.append((_version_key(path.stem), path))
    return max(candidates)[1] if candidates else None


def _entry_lines(text: str) -> list[int]:
    return [number for number, line in enumerate(text.splitlines(), 1) if line.strip() == "[[deviation]]"]


def parse_deviations(text: str, source: str) -> tuple[Deviation, ...]:
    """Parse and check one deviation file's text; ``source`` names it in error messages."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise DeviationFileError(f"{source}: not valid TOML: {error}") from None
    unknown_tables = sorted(set(document) - {"deviation"})
    if unknown_tables:
        raise DeviationFileError(f"{source}: unexpected top-level keys {unknown_tables}; use [[deviation]] tables")
    entries = document.get("deviation", [])
    if not isinstance(entries, list):
        raise DeviationFileError(f"{source}: 'deviation' must be an array of tables ([[deviation]])")
    lines = _entry_lines(text)
    clauses = registry()
    seen: set[str] = set()
    deviations: list[Deviation] = []
    for index, entry in enumerate(entries):
        line = lines[index] if index < len(lines) else 0
        where = f"{source}:{line}: deviation #{index + 1}"
        if not isinstance(entry, dict):
            raise DeviationFileError(f"{where}: must be a table")
        missing = sorted(_KEYS - set(entry))
        extra = sorted(set(entry) - _KEYS - _OPTIONAL_KEYS)
        if missing or extra:
            raise DeviationFileError(f"{where}: missing keys {missing}, unknown keys {extra}")
        ident, clause, tests, sdk = entry["id"], entry["clause"], entry["tests"], entry["sdk"]
        if not isinstance(ident, str) or not ident.strip():
            raise DeviationFileError(f"{where}: id must be a nonempty string")
        where = f"{where} ({ident})"
        if ident in seen:
            raise DeviationFileError(f"{where}: duplicate id")
        seen.add(ident)
        if not isinstance(clause, str) or clause not in clauses:
            raise DeviationFileError(f"{where}: unknown clause ID {clause!r}")
        if not isinstance(sdk, str) or not sdk.strip() or "\n" in sdk.strip():
            raise DeviationFileError(f"{where}: sdk must be one nonempty line")
        if not isinstance(tests, list) or not tests:
            raise DeviationFileError(f"{where}: tests must be a nonempty list of test node IDs")
        for test in tests:
            if not isinstance(test, str) or not _TEST_PATTERN.match(test):
                raise DeviationFileError(
                    f"{where}: test {test!r} is not '<dir>/<module>.py::<test>' or '...::<test>[<params>]'"
                )
            module = CONTRACTS_DIR / test.split("::", 1)[0]
            if not module.is_file():
                raise DeviationFileError(f"{where}: test module {module} does not exist")
        fixed_in = entry.get("fixed_in")
        if fixed_in is not None:
            if not isinstance(fixed_in, str) or not _VERSION.match(fixed_in):
                raise DeviationFileError(f'{where}: fixed_in must be an openai version such as "3.36.1"')
            stem = Path(source).stem
            if _VERSION.match(stem) and _version_key(fixed_in) <= _version_key(stem):
                raise DeviationFileError(f"{where}: fixed_in {fixed_in} is not newer than the file's version {stem}")
        deviations.append(Deviation(ident, clause, tuple(tests), sdk.strip(), source, fixed_in))
    return tuple(deviations)


def load_deviations(version: str | None = None, directory: Path | None = None) -> tuple[Deviation, ...]:
    """The known deviations for SDK ``version`` (default: the installed one), without those fixed by then."""
    version = version or installed_sdk_version()
    path = deviation_file(version, directory)
    if path is None:
        return ()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise DeviationFileError(f"{path}: cannot read: {error}") from None
    return tuple(deviation for deviation in parse_deviations(text, str(path)) if deviation.applies_to(version))


def contract_key(item: _Item) -> str | None:
    """``<dir>/<module>.py::<test>[params]`` relative to the contracts package, or None for other items.

    Built from the item's file, not its node ID: a node ID is relative to pytest's rootdir, which a path given
    as an option's separate value (``--certificate out``) can move, in xdist workers only.
    """
    try:
        relative = Path(item.path).resolve().relative_to(CONTRACTS_DIR.resolve())
    except ValueError:
        return None
    return f"{relative.as_posix()}::{item.nodeid.split('::', 1)[1]}" if "::" in item.nodeid else None


def _matches(pattern: str, key: str) -> bool:
    return key == pattern or ("[" not in pattern and key.split("[", 1)[0] == pattern)


def apply_deviations(
    items: Sequence[_Item], openai_version: str | None = None, directory: Path | None = None
) -> list[Deviation]:
    """Mark the collected checks named by the applicable deviation file as ``xfail(strict=True)``.

    Returns the deviations that matched at least one item. Safe to call twice (items are marked once).
    ``directory`` overrides the shipped known_deviations directory (kit tests use it).
    Raises :class:`DeviationFileError` for a malformed file or an entry naming a check that does not declare
    the entry's clause.
    """
    deviations = load_deviations(openai_version, directory)
    applied: list[Deviation] = []
    for deviation in deviations:
        matched = False
        for item in items:
            key = contract_key(item)
            if key is None or not any(_matches(pattern, key) for pattern in deviation.tests):
                continue
            declared = {str(arg) for mark in item.iter_markers("clause") for arg in mark.args}
            if deviation.clause not in declared:
                raise DeviationFileError(
                    f"{deviation.source}: deviation {deviation.id} names {item.nodeid}, "
                    f"which does not declare clause {deviation.clause}"
                )
            matched = True
            already = any(
                str(mark.kwargs.get("reason", "")).startswith(REASON_PREFIX) for mark in item.iter_markers("xfail")
            )
            if not already:
                item.add_marker(pytest.mark.xfail(strict=True, reason=deviation.reason))
                # Names the clause for the certificate: the check may declare others the SDK does honour.
                item.add_marker(DEVIATION_MARKER(deviation.clause, id=deviation.id))
        if matched:
            applied.append(deviation)
    return applied


def list_command(node: bool = False) -> int:
    """Print the known deviations for the installed SDK (``driverkit deviations``; ``--node``: the npm openai's
    from ``known_deviations/node/``); 0 on success, 2 on error."""
    directory: Path | None = None
    if node:
        from conformance.node.sdk.subject import NODE_DEVIATIONS_DIR, node_sdk_version

        directory = NODE_DEVIATIONS_DIR
        try:
            version = node_sdk_version()
        except FileNotFoundError as error:
            print(f"driverkit: {error}", file=sys.stderr)
            return 2
    else:
        version = installed_sdk_version()
    try:
        path = deviation_file(version, directory)
        deviations = load_deviations(version, directory)
    except DeviationFileError as error:
        print(f"driverkit: {error}", file=sys.stderr)
        return 2
    label = "openai (npm)" if node else "openai"
    if path is None:
        print(f"{label} {version}: no known-deviation file applies; every check must pass.")
        return 0
    print(f"{label} {version}: {len(deviations)} known deviation(s) from {path.name}")
    clauses = registry()
    for deviation in deviations:
        print(f"\n{deviation.id}  {deviation.clause}: {clauses.get(deviation.clause).summary}")
        print(f"  SDK: {deviation.sdk}")
        for test in deviation.tests:
            print(f"  check: {test}")
    return 0


__all__ = [
    "Deviation",
    "DeviationFileError",
    "apply_deviations",
    "deviation_file",
    "installed_sdk_version",
    "list_command",
    "load_deviations",
    "parse_deviations",
]
