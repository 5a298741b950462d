"""The open-questions list: well formed, tied to real clauses, and printed by ``driverkit clauses --open-questions``."""

from __future__ import annotations

import pytest

from conformance.clauses import registry
from conformance.clauses.open_questions import OPEN_QUESTIONS
from conformance.cli import main


def test_questions_have_unique_ids_and_every_field() -> None:
    ids = [question.id for question in OPEN_QUESTIONS]
    assert len(ids) == len(set(ids)) and ids == sorted(ids)
    for question in OPEN_QUESTIONS:
        assert question.question.endswith("?"), question.id
        assert question.choice.strip() and question.why.strip() and question.clauses, question.id


def test_questions_name_existing_clauses() -> None:
    clauses = registry()
    unknown = [
        (question.id, clause) for question in OPEN_QUESTIONS for clause in question.clauses if clause not in clauses
    ]
    assert unknown == []


def test_cli_lists_every_question_with_choice_and_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clauses", "--open-questions"]) == 0
    out = capsys.readouterr().out
    assert f"{len(OPEN_QUESTIONS)} question(s)" in out
    for question in OPEN_QUESTIONS:
        assert question.id in out and question.question in out and question.choice in out and question.why in out


def test_plain_clause_listing_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clauses"]) == 0
    out = capsys.readouterr().out
    assert "RN-LOOP-003" in out and "OQ-001" not in out
