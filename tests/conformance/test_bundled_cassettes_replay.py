"""Every cassette the kit ships either replays with ``driverkit replay`` or says in one line why it cannot."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import cassettes, resources
from conformance.cassette_builder import REPLAY_REQUEST
from conformance.replay import ReplayError, replay

BUNDLED = sorted(resources.streams().rglob("*.jsonl"))


def _claims_replayable(path: Path) -> bool:
    """A recorded first request, or the run an authored cassette stores for replay."""
    cassette = cassettes.load(path)
    recorded = bool(cassette.exchanges) and cassette.exchanges[0].request.body is not None
    return recorded or REPLAY_REQUEST in cassette.meta


REPLAYABLE = [path for path in BUNDLED if _claims_replayable(path)]
OTHERS = [path for path in BUNDLED if not _claims_replayable(path)]


def _name(path: Path) -> str:
    return str(path.relative_to(resources.streams()))


def test_the_examples_claim_to_be_replayable() -> None:
    names = {_name(path) for path in REPLAYABLE}
    assert {"examples/reader.jsonl", "examples/fieldwork.jsonl", "examples/mixed.jsonl"} <= names
    assert len(BUNDLED) == len(REPLAYABLE) + len(OTHERS) > 60


# Cassettes shipped to diverge in a streamed replay: their stream is cut on purpose (``driverkit shrink``'s example).
DIVERGES_WHEN_STREAMED = {"long-run-cut-stream.jsonl"}


@pytest.mark.parametrize("mode", [None, "async-eager"])
@pytest.mark.parametrize("path", REPLAYABLE, ids=_name)
def test_replayable_bundled_cassette_replays(path: Path, mode: str | None) -> None:
    report = replay(str(path), mode=mode)
    if _name(path) in DIVERGES_WHEN_STREAMED and mode is not None:
        assert not report.ok and report.unused_exchanges > 0, report.render()
        return
    assert report.ok, report.render()
    assert report.requests_sent == report.exchanges


@pytest.mark.parametrize("path", OTHERS, ids=_name)
def test_other_bundled_cassettes_say_why_in_one_line(path: Path) -> None:
    with pytest.raises(ReplayError) as raised:
        replay(str(path))
    message = str(raised.value)
    assert "\n" not in message and message.startswith(f"{path}: ")
    assert "cannot be replayed" in message or "has no exchanges" in message


def test_an_authored_run_is_rebuilt_without_comparing_bodies(tmp_path: Path) -> None:
    path = tmp_path / "reader.jsonl"
    source = cassettes.load(resources.streams("examples", "reader.jsonl"))
    cassettes.save(source, path)
    report = replay(str(path))
    assert not report.requests_compared and "not compared" in report.render()
    assert report.calls == ("get_page_text",)
