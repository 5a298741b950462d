"""The clause registry's mechanics: every clause file loads, a missing or malformed one fails loudly and names
itself and the entry at fault."""

from __future__ import annotations

import pytest

from conformance.clauses import CLAUSE_FILES, ClauseFileError, load_clauses, parse_clauses, registry

GOOD_ENTRY = """
[[clause]]
id = "XX-DEMO-001"
document = "000"
section = "Driver contract"
member = "click"
summary = "A demonstration clause."
"""


def test_every_clause_file_contributes_clauses() -> None:
    parts = {clause.part for clause in registry()}
    assert {"BR", "TS", "RN", "CO"} <= parts
    assert all(load_clauses(name) for name in CLAUSE_FILES)
    assert len(registry()) == sum(len(load_clauses(name)) for name in CLAUSE_FILES)


def test_an_entry_becomes_a_clause_with_every_field() -> None:
    (clause,) = parse_clauses("demo", GOOD_ENTRY)
    assert (clause.id, clause.spec, clause.section, clause.member) == ("XX-DEMO-001", "000", "Driver contract", "click")
    assert clause.summary == "A demonstration clause."


def test_a_missing_clause_file_is_an_error_naming_it() -> None:
    with pytest.raises(ClauseFileError, match=r"clause file gone\.toml \(conformance\.clauses\): the file does not"):
        load_clauses("gone")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[[clause]\nid = 1", r"not valid TOML"),
        ("", r"holds no \[\[clause\]\] entries"),
        ("title = 'x'\n" + GOOD_ENTRY, r"unexpected top-level keys \['title'\]"),
        (GOOD_ENTRY.replace('section = "Driver contract"\n', ""), r"number 1 \(XX-DEMO-001\) lacks \['section'\]"),
        (GOOD_ENTRY + "severity = 'high'\n", r"unknown keys \['severity'\]"),
        (GOOD_ENTRY.replace('"click"', "3"), r"\['member'\] must be non-empty strings"),
        (GOOD_ENTRY.replace('"A demonstration clause."', '"  "'), r"\['summary'\] must be non-empty strings"),
    ],
    ids=["not-toml", "empty", "stray-key", "missing-key", "unknown-key", "not-a-string", "blank"],
)
def test_a_malformed_clause_file_is_an_error_naming_the_entry(text: str, problem: str) -> None:
    with pytest.raises(ClauseFileError, match=r"clause file demo\.toml .*" + problem):
        parse_clauses("demo", text)
