"""The committed cassettes: valid, documented, enough of them, identical to their builder sources in tools/."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import cassettes
from conformance.cassette_builder import CassetteBuilder, message
from tools.cassettes import stream_sources  # noqa: F401  (registers the live-* scenarios into RUNNER)
from tools.cassettes.__main__ import main
from tools.cassettes.example_sources import EXAMPLES
from tools.cassettes.registry import DuplicateSourceError, SourceRegistry
from tools.cassettes.runner_sources import RUNNER

STREAMS = Path(__file__).resolve().parents[2] / "fixtures" / "streams"
COMMITTED = sorted(STREAMS.glob("*.jsonl"))
COMMITTED_EXAMPLES = sorted((STREAMS / "examples").glob("*.jsonl"))


def test_at_least_forty_scenarios_are_committed() -> None:
    assert len(COMMITTED) >= 40


@pytest.mark.parametrize("path", COMMITTED, ids=[path.stem for path in COMMITTED])
def test_committed_cassette_loads_and_matches_its_source(path: Path) -> None:
    cassette = cassettes.load(path)
    assert path.stem in RUNNER.sources, f"{path.name} has no builder source"
    assert cassette == RUNNER.sources[path.stem]().build(), (
        f"{path.name} drifted; run python -m tools.cassettes --write"
    )


def test_every_source_is_committed() -> None:
    assert sorted(RUNNER.build_all()) == sorted(path.stem for path in COMMITTED)
    assert sorted(EXAMPLES.sources) == sorted(path.stem for path in COMMITTED_EXAMPLES)


def test_the_check_command_finds_no_drift() -> None:
    assert main([]) == 0


def test_the_registries_write_where_the_kit_reads() -> None:
    assert RUNNER.directory.resolve() == STREAMS
    assert EXAMPLES.directory.resolve() == STREAMS / "examples"


def _hello() -> CassetteBuilder:
    return CassetteBuilder("hello", description="A greeting.").turn(message("Hello."))


def test_a_second_source_under_one_name_is_refused(tmp_path: Path) -> None:
    registry = SourceRegistry(tmp_path)
    registry.source("hello")(_hello)
    with pytest.raises(DuplicateSourceError, match="'hello'"):
        registry.source("hello")(_hello)


def test_drift_names_a_changed_and_a_missing_file(tmp_path: Path) -> None:
    registry = SourceRegistry(tmp_path)
    registry.source("hello")(_hello)
    assert list(registry.drifted()) == ["hello"]
    registry.write()
    assert list(registry.drifted()) == []
    registry.path("hello").write_text(registry.path("hello").read_text().replace("Hello.", "Hi."))
    assert list(registry.drifted()) == ["hello"]


def test_fixtures_stay_small() -> None:
    # About 3 KB a scenario: the bound grows with the clauses that need their own traffic, and still catches a
    # recording or a generated stream committed by mistake.
    assert sum(path.stat().st_size for path in COMMITTED) < 450_000


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
    assert "python -m tools.cassettes --write" in readme
