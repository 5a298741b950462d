"""The coverage map: documents cut into fingerprinted units, statements mapped to clauses, drift detected."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.clauses import registry
from conformance.clauses.coverage import (
    StatementFileError,
    StatementMap,
    clauses_without_statements,
    compare_with_documents,
    coverage_lines,
    load_map,
    parse_statements,
)
from conformance.clauses.documents import (
    DECLARATIONS_KEY,
    DocumentsNotFoundError,
    find_documents,
    fingerprint,
    sentences,
    units,
)
from conformance.cli import main
from tools import docs_text

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.node]

PLAIN = """A plain guide

Drivers must report tabs. Each tab has an id, e.g. a number. Use stable IDs!

Close and cancel work

close() refuses new work: it returns at once.
| Requirement | Who |
|---|---|
| Request | Accept a session |
- A list item that ends in a full stop.
const example = compute(value);
return [{ type: "input_text" }];
"""

MARKDOWN = """# A markdown guide

Intro sentence one. Intro
sentence two wraps.

## Driver contract

- state() returns tabs.
- Exactly one tab is active.

```python
def state(self) -> dict:  # must not be read as prose.
    return {}
```
Text after the fence.
"""

DECLARATIONS = """import { x } from "y";
export interface BrowserState {
    readonly tabs: readonly Tab[];
    readonly observation?: Observation;
}
export type BrowserMember = "navigate" | "click";
"""


def test_sentences_split_at_sentence_ends_but_not_after_abbreviations() -> None:
    assert sentences("One, e.g. two. Three `x` four! Is it (five)? Yes.") == [
        "One, e.g. two.",
        "Three `x` four!",
        "Is it (five)?",
        "Yes.",
    ]


def test_plain_document_units_follow_headings_and_skip_code() -> None:
    found = [(unit.section, unit.text) for unit in units("002", PLAIN)]
    assert found == [
        ("A plain guide", "Drivers must report tabs."),
        ("A plain guide", "Each tab has an id, e.g. a number."),
        ("A plain guide", "Use stable IDs!"),
        ("Close and cancel work", "close() refuses new work: it returns at once."),
        ("Close and cancel work", "| Requirement | Who |"),
        ("Close and cancel work", "| Request | Accept a session |"),
        ("Close and cancel work", "- A list item that ends in a full stop."),
    ]


def test_markdown_units_join_wrapped_lines_and_skip_fenced_code() -> None:
    found = [(unit.section, unit.text) for unit in units("000", MARKDOWN)]
    assert found == [
        ("A markdown guide", "Intro sentence one."),
        ("A markdown guide", "Intro sentence two wraps."),
        ("Driver contract", "- state() returns tabs."),
        ("Driver contract", "- Exactly one tab is active."),
        ("Driver contract", "Text after the fence."),
    ]


def test_declaration_units_are_members_named_by_their_declaration() -> None:
    found = [(unit.section, unit.text.splitlines()[0].strip()) for unit in units(DECLARATIONS_KEY, DECLARATIONS)]
    assert found == [
        ("BrowserState", "readonly tabs: readonly Tab[];"),
        ("BrowserState", "readonly observation?: Observation;"),
        ("BrowserMember", 'export type BrowserMember = "navigate" | "click";'),
    ]


def test_fingerprints_ignore_whitespace_only() -> None:
    assert fingerprint("Exactly one  tab\nis active.") == fingerprint("Exactly one tab is active.")
    assert fingerprint("Exactly one tab is active.") != fingerprint("Exactly two tabs are active.")
    assert len(fingerprint("x")) == 12


def _map_of(document: str, text: str) -> StatementMap:
    """A map that names every unit of ``text``: the first as a statement, the rest as informative."""
    found = units(document, text)
    first, rest = found[0], found[1:]
    entries = [
        f'document = "{document}"',
        'prefix = "T"',
        "[[statement]]",
        'id = "T-001"',
        f'section = "{first.section}"',
        f'units = ["{first.fingerprint}"]',
        'says = "Tabs are reported."',
        'clauses = ["BR-STATE-001"]',
    ]
    for unit in rest:
        entries += ["[[informative]]", f'section = "{unit.section}"', f'units = ["{unit.fingerprint}"]']
    return parse_statements("test.toml", "\n".join(entries), registry())


def test_a_changed_sentence_is_drift_on_both_sides() -> None:
    statement_map = _map_of("002", PLAIN)
    assert compare_with_documents(statement_map, {"002": PLAIN}).clean
    changed = PLAIN.replace("Drivers must report tabs.", "Drivers may report tabs.")
    drift = compare_with_documents(statement_map, {"002": changed})
    assert drift.missing == [("T-001", "A plain guide", fingerprint("Drivers must report tabs."))]
    assert drift.unaccounted == [("002", "A plain guide", fingerprint("Drivers may report tabs."))]


def test_a_new_sentence_is_unaccounted() -> None:
    statement_map = _map_of("002", PLAIN)
    added = PLAIN.replace("Use stable IDs!", "Use stable IDs! Never reuse one.")
    drift = compare_with_documents(statement_map, {"002": added})
    assert not drift.missing
    assert drift.unaccounted == [("002", "A plain guide", fingerprint("Never reuse one."))]


BASE = 'document = "002"\nprefix = "T"\n'
GOOD = '[[statement]]\nid = "T-001"\nsection = "S"\nunits = ["0123456789ab"]\nsays = "x"\n'


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('document = "009"\nprefix = "T"\n', "document must be one of"),
        (BASE + GOOD.replace('"T-001"', '"X-001"'), "must start with the file's prefix"),
        (BASE + GOOD + 'clauses = ["BR-NOPE-001"]\n', "names clauses no clause list defines"),
        (BASE + GOOD + 'clauses = ["BR-STATE-001"]\nuntestable = "why"\n', "both mapped to clauses and marked"),
        (BASE + GOOD.replace('"0123456789ab"', '"short"'), "12-digit fingerprints"),
        (BASE + GOOD + "colour = 1\n", "unknown keys ['colour']"),
        (BASE + GOOD + 'untestable = " "\n', "untestable must say why"),
        (BASE + "[[informative]]\nsection = 'S'\n", "needs a section and a list of units"),
        (BASE + "[[statement\n", "not valid TOML"),
    ],
)
def test_malformed_statement_files_are_refused_by_name(text: str, problem: str) -> None:
    with pytest.raises(StatementFileError, match=r"statement file bad\.toml") as raised:
        parse_statements("bad.toml", text, registry())
    assert problem in str(raised.value)


def test_a_statement_is_covered_untestable_or_a_gap() -> None:
    parsed = parse_statements(
        "t.toml",
        BASE
        + GOOD
        + 'clauses = ["BR-STATE-001"]\n'
        + GOOD.replace("T-001", "T-002")
        + 'untestable = "a model decides"\n'
        + GOOD.replace("T-001", "T-003"),
        registry(),
    )
    assert [statement.status for statement in parsed.statements] == ["covered", "untestable", "gap"]
    assert parsed.clauses_citing() == {"BR-STATE-001": ["T-001"]}


# --- the map the kit ships ---------------------------------------------------------------------------------------


def _documents() -> dict[str, str]:
    """The documents this run was given (``$DRIVERKIT_DOCUMENTS``; CI sets it where the documents are), else the
    type declarations the npm openai ships: no test depends on a path outside the repository."""
    return find_documents()


def test_every_clause_cites_a_section_its_document_has() -> None:
    # Sections the map places units in are the documents' own (the drift test holds the map to the text);
    # sections of documents at hand count too.
    statement_map = load_map()
    known = {(statement.document, statement.section) for statement in statement_map.statements}
    known |= set(statement_map.informative)
    for key, text in _documents().items():
        known |= {(unit.document, unit.section) for unit in units(key, text)}
    wrong = [
        (clause.id, clause.spec, clause.section) for clause in registry() if (clause.spec, clause.section) not in known
    ]
    assert not wrong, f"clauses citing a section their document does not have: {wrong}"


def test_the_shipped_map_loads_and_matches_the_documents_at_hand() -> None:
    statement_map = load_map()
    texts = _documents()
    assert texts, "not even the npm openai's type declarations are installed (run scripts/setup.sh)"
    drift = compare_with_documents(statement_map, texts)
    assert not drift.missing, f"mapped units the documents no longer hold (their text changed): {drift.missing}"
    assert not drift.unaccounted, (
        f"{len(drift.unaccounted)} units of the documents the map does not account for "
        "(driverkit clauses --worksheet --documents DIR lists them): " + repr(drift.unaccounted[:5])
    )


def test_every_clause_cites_a_statement_of_the_documents() -> None:
    unmapped = clauses_without_statements(load_map())
    assert not unmapped, f"clauses that check no statement of the documents: {unmapped}"


def test_coverage_command_prints_totals_and_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["clauses", "--coverage"])
    out = capsys.readouterr().out
    statement_map = load_map()
    assert out.startswith(f"{len(statement_map.statements)} normative statements in the contract documents")
    gaps = statement_map.by_status("gap")
    for gap in gaps:
        assert f"  {gap.id}: {gap.says}" in out
    assert status == (1 if gaps or clauses_without_statements(statement_map) else 0)


def test_a_missing_documents_folder_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clauses", "--coverage", "--documents", str(tmp_path / "absent")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"driverkit clauses: documents folder {tmp_path / 'absent'} does not exist"
    (tmp_path / "000_a.txt").write_text("# Title\n", encoding="utf-8")
    with pytest.raises(DocumentsNotFoundError, match="exactly one 002_"):
        find_documents(tmp_path)


def test_the_docs_state_the_coverage_the_map_gives() -> None:
    # The docs' figures come from the map: regenerate the line with `driverkit clauses --coverage | head -1`.
    stated = docs_text.section("driver-authors", "What the verdict rests on")
    first = coverage_lines(load_map(), None)[0]
    assert first in stated, f"the docs' coverage line is stale; it should read:\n{first}"
