"""The docs' SDK section ("SDK maintainers" > "Check the SDK itself") names exactly the recorded 3.57.0 deviations
and every open question."""

from __future__ import annotations

import re

from conformance.clauses import registry
from conformance.clauses.open_questions import OPEN_QUESTIONS
from conformance.deviations import DEVIATIONS_DIR, parse_deviations
from tools import docs_text

SECTION = docs_text.section("sdk-maintainers", "Check the SDK itself")


def test_every_recorded_deviation_is_in_the_table_with_its_clause() -> None:
    path = DEVIATIONS_DIR / "3.57.0.toml"
    deviations = parse_deviations(path.read_text(encoding="utf-8"), str(path))
    rows = dict(re.findall(r"^\| (DEV-[A-Z]+-\d+) \| ([A-Z]+-[A-Z]+-\d+) \|", SECTION, re.MULTILINE))
    assert rows == {deviation.id: deviation.clause for deviation in deviations}
    clauses = {deviation.clause for deviation in deviations}
    total = len(registry().with_prefix("TS", "RN"))
    # How many pass is measured (some clauses are the Node SDK's own forms, not implemented in Python): the total
    # and the deviations are what the registry and the baseline fix.
    assert f" of the {total} toolset and runner" in SECTION
    assert f"{len(clauses)} clauses carry {len(deviations)} known deviations" in SECTION


def test_the_oldest_supported_releases_extra_deviations_are_named_with_their_fix() -> None:
    newest = DEVIATIONS_DIR / "3.57.0.toml"
    oldest = DEVIATIONS_DIR / "3.31.0.toml"
    later = {deviation.id for deviation in parse_deviations(newest.read_text(encoding="utf-8"), str(newest))}
    for deviation in parse_deviations(oldest.read_text(encoding="utf-8"), str(oldest)):
        if deviation.id not in later:
            assert f"{deviation.id} ({deviation.clause}" in SECTION
            assert deviation.fixed_in is None or f"fixed in {deviation.fixed_in}" in SECTION


def test_every_open_question_is_named() -> None:
    for question in OPEN_QUESTIONS:
        assert question.id in SECTION
