"""The committed runner cassettes: valid, documented, enough of them, and identical to their builder sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import cassettes
from conformance.contracts.runner.cassette_sources import SOURCES, build_all

STREAMS = Path(__file__).resolve().parents[1] / "fixtures" / "streams"
COMMITTED = sorted(STREAMS.glob("*.jsonl"))


def test_at_least_forty_scenarios_are_committed() -> None:
    assert len(COMMITTED) >= 40


@pytest.mark.parametrize("path", COMMITTED, ids=[path.stem for path in COMMITTED])
def test_committed_cassette_loads_and_matches_its_source(path: Path) -> None:
    cassette = cassettes.load(path)
    assert path.stem in SOURCES, f"{path.name} has no builder source"
    assert cassette == SOURCES[path.stem]().build(), (
        f"{path.name} drifted; run python -m conformance.contracts.runner.cassette_sources --write"
    )


def test_every_source_is_committed() -> None:
    assert sorted(build_all()) == sorted(path.stem for path in COMMITTED)


def test_fixtures_stay_small() -> None:
    assert sum(path.stat().st_size for path in COMMITTED) < 300_000


def test_readme_documents_the_format() -> None:
    readme = (STREAMS / "README.md").read_text()
    for term in (
        "driverkit.responses",
        "version",
        "sequence_number",
        "cut_stream",
        "output_index",
        "drop_event",
        "completed_output",
        "http_status",
    ):
        assert term in readme
