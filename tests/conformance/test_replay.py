"""Replaying recorded runs: a faithful recording matches in every mode; a changed one reports the first
divergence with a diff and the receipts; the command line and the pytest fixture work."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conformance import cassettes
from conformance.cassette_builder import CassetteBuilder, function_call, message
from conformance.harness.environment import Environment
from conformance.probes import browser_probe
from conformance.replay import MODES, ReplayError, replay
from conformance.replay_command import add_arguments, run
from tests.conformance.recorded_runs import lookup_source, record_lookup_run


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "recorded.jsonl"
    record_lookup_run(path, lookup_source())
    return path


@pytest.mark.parametrize("mode", sorted(MODES))
def test_faithful_recording_matches_in_every_mode(recorded: Path, mode: str) -> None:
    report = replay(str(recorded), mode=mode)
    assert report.ok, report.render()
    assert report.final_text == "Done."
    assert report.calls == ("get_page_text", "function lookup", "function lookup")


def test_default_mode_follows_the_recording(recorded: Path) -> None:
    assert replay(str(recorded)).mode == "sync-stream"


def _rewrite(path: Path, change: Any) -> None:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    change(lines)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_changed_recording_reports_first_divergence_with_diff(recorded: Path) -> None:
    # The runner must repeat the caller's tool_choice on every request, so a recording whose second request
    # says otherwise diverges there.
    def change(lines: list[dict[str, Any]]) -> None:
        lines[2]["request"]["body"]["tool_choice"] = "none"

    _rewrite(recorded, change)
    report = replay(str(recorded))
    assert not report.ok and report.divergence is not None
    assert report.divergence.index == 1
    assert '-  "tool_choice": "none",' in report.diff
    assert '+  "tool_choice": "auto",' in report.diff
    text = report.render()
    assert "DIVERGED" in text and "first divergence: request 1" in text
    assert "attempted_call_ids: ['c1', 'c2']" in text


def test_driver_outputs_are_compared_only_when_strict(recorded: Path) -> None:
    # The recording's browser output came from a driver answering "a real page"; the probe answers otherwise.
    assert replay(str(recorded)).ok
    strict = replay(str(recorded), strict=True)
    assert not strict.ok and strict.divergence is not None and "a real page" in strict.diff


def test_unused_recorded_exchanges_are_reported(recorded: Path) -> None:
    def change(lines: list[dict[str, Any]]) -> None:
        extra = json.loads(json.dumps(lines[-1]))
        extra["exchange"] = len(lines) - 1
        lines.append(extra)

    _rewrite(recorded, change)
    report = replay(str(recorded))
    assert not report.ok and report.unused_exchanges == 1
    assert "never requested" in report.render()


def test_receipts_of_a_failed_recorded_run(tmp_path: Path) -> None:
    source = (
        CassetteBuilder("s")
        .turn(function_call("lookup", {"reference": "A"}, call_id="c1"), message("x", item_id="m"))
        .fault("cut_stream", after_sequence=1)
        .build()
    )
    path = tmp_path / "failed.jsonl"
    record_lookup_run(path, source, eager=True)
    report = replay(str(path), mode="async-eager")
    assert report.ok, report.render()
    assert report.error is not None and report.attempted_call_ids == ("c1",)
    assert report.completed_call_ids == ("c1",)


def make_driver(env: Environment) -> Any:
    """A certification factory: called with the Environment, it picks its own flavour (async here)."""
    assert isinstance(env, Environment)
    return browser_probe("async", ["get_page_text"], replies={"get_page_text": "from factory"})


def make_sync_driver(env: Environment) -> Iterator[Any]:
    """A generator factory, as certification accepts; the replay cleans it up afterwards."""
    driver = browser_probe("sync", ["get_page_text"])
    yield driver
    closed.append(driver)


closed: list[Any] = []


def test_driver_factory_takes_the_certification_protocol(recorded: Path) -> None:
    report = replay(str(recorded), driver=make_driver)
    assert report.ok and report.mode == "async-stream", report.render()
    assert "went to the --driver driver" in report.render()
    closed.clear()
    report = replay(str(recorded), driver=f"{__name__}:make_sync_driver")
    assert report.ok and report.mode == "sync-stream", report.render()
    assert len(closed) == 1


def test_driver_flavour_and_mode_must_agree(recorded: Path) -> None:
    with pytest.raises(ReplayError, match="async driver, which cannot run a sync-plain replay"):
        replay(str(recorded), driver=make_driver, mode="sync-plain")


def test_unknown_driver_module_names_the_folders_searched(recorded: Path) -> None:
    with pytest.raises(ReplayError, match="module 'no_such_pkg' not found; searched these folders"):
        replay(str(recorded), driver="no_such_pkg.drivers:make")


def make_state_only_driver(env: Environment) -> Any:
    """A driver that lacks the member the recorded run used."""
    return browser_probe("async", [])


def test_a_driver_lacking_a_recorded_member_is_one_line_naming_it(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(_cli(str(recorded), "--driver", f"{__name__}:make_state_only_driver")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("driverkit replay: the --driver driver does not implement get_page_text, "), err


def _cli(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="driverkit replay")
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_cli_exit_codes(recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(_cli(str(recorded), "--mode", "async-stream")) == 0
    assert "MATCH" in capsys.readouterr().out
    assert run(_cli(str(recorded), "--strict")) == 1
    assert run(_cli(str(recorded), "--driver", "no_colon")) == 2
    assert "expected module:attribute" in capsys.readouterr().err
    builder_only = tmp_path / "builder.jsonl"
    cassettes.save(lookup_source(), builder_only)
    assert run(_cli(str(builder_only))) == 2
    err = capsys.readouterr().err
    assert "cannot be replayed on its own" in err and f"{builder_only}: " in err and "record_client" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "driverkit.responses", "version": 9}\n')
    assert run(_cli(str(bad))) == 2
    assert f"{bad}:1: unsupported cassette version 9" in capsys.readouterr().err


def test_unknown_mode_is_refused(recorded: Path) -> None:
    with pytest.raises(ReplayError, match="unknown mode"):
        replay(str(recorded), mode="turbo")


def test_replayer_fixture(recorded: Path, replayer: Any) -> None:
    assert replayer(str(recorded), mode="sync-eager").ok
