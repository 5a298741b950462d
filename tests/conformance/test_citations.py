"""Clauses cite their documents by title and section heading (or SDK type name), never by a file name."""

from __future__ import annotations

import re

import pytest

from conformance.clauses import DOCUMENTS, registry
from conformance.cli import main

FILE_NAME = re.compile(r"\.txt|spec/|\b00[0-4]_")


def test_every_source_is_a_title_and_a_place() -> None:
    titles = {document.title for document in DOCUMENTS.values()}
    for clause in registry():
        title, separator, place = clause.source.partition(" > ")
        assert separator and title in titles and place, clause.source
        assert not FILE_NAME.search(clause.source), clause.source


def test_member_table_clauses_name_the_member() -> None:
    member_clauses = [clause for clause in registry() if clause.section == "members" and clause.member]
    assert member_clauses
    for clause in member_clauses:
        assert clause.source == f"{DOCUMENTS[clause.spec].title} > members.{clause.member}"


def test_clauses_command_cites_titles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clauses"]) == 0
    out = capsys.readouterr().out
    assert "(Browser and desktop drivers > Browser driver contract)" in out
    assert "(OpenAI Node SDK browser type declarations > BrowserState)" in out
    assert not FILE_NAME.search(out)
