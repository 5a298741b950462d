"""``driverkit replay CASSETTE --html OUT.html``: the replayed run as a timeline, turn by turn, with the mode, the
tool calls and the outputs sent back, local calls with their times, and the first divergence with its diff;
checked as HTML and, offline, in a real browser that must make no request."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from conformance.replay import replay
from conformance.replay_command import add_arguments, run
from reference.browser import launch
from tests.conformance.recorded_runs import lookup_source, record_lookup_run

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """A real recorded run: a browser read and a function call in turn 1, a function call in turn 2, an answer."""
    path = tmp_path / "recorded.jsonl"
    record_lookup_run(path, lookup_source())
    return path


def _diverge_on_the_second_request(path: Path) -> None:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[2]["request"]["body"]["tool_choice"] = "none"  # the runner repeats "auto": request 1 diverges
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _cli(*arguments: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(arguments))


def test_a_matching_replay_shows_every_turn_its_tool_calls_and_outputs(recorded: Path, tmp_path: Path) -> None:
    out = tmp_path / "timeline.html"
    assert run(_cli(str(recorded), "--mode", "async-stream", "--html", str(out))) == 0
    page = out.read_text("utf-8")
    assert '<b id="mode">async-stream</b>' in page and ">MATCH</span>" in page
    assert page.count('<section class="turn">') == 3 and 'class="turn diverged"' not in page
    assert "<code>lookup</code><br><small>c2</small>" in page and "found A" in page  # the call and its output
    assert "<code>function lookup</code>" in page  # the local call, with its time
    assert "output item 0: " in page and "response.output_item.done" in page  # events grouped per item
    assert "final output text: &#x27;Done.&#x27;" in page


def test_the_first_divergence_is_highlighted_with_its_diff(recorded: Path, tmp_path: Path) -> None:
    _diverge_on_the_second_request(recorded)
    report = replay(str(recorded))
    assert report.divergence is not None and report.divergence.index == 1
    out = tmp_path / "timeline.html"
    assert run(_cli(str(recorded), "--html", str(out))) == 1
    page = out.read_text("utf-8")
    diverged = page[page.index('<section class="turn diverged">') :]
    assert diverged.startswith('<section class="turn diverged"><h3>Turn 2')
    assert '<span class="del">-  &quot;tool_choice&quot;: &quot;none&quot;,</span>' in diverged
    assert '<span class="add">+  &quot;tool_choice&quot;: &quot;auto&quot;,</span>' in diverged
    assert "Turn 3: never requested" in page


def test_an_output_folder_that_does_not_exist_is_refused_before_replaying(
    recorded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "missing" / "timeline.html"
    assert run(_cli(str(recorded), "--html", str(out))) == 2
    assert f"--html {out}: the folder {out.parent} does not exist" in capsys.readouterr().err
    assert not out.parent.exists()


def test_the_timeline_opens_offline_and_makes_no_request(recorded: Path, tmp_path: Path) -> None:
    _diverge_on_the_second_request(recorded)
    out = tmp_path / "timeline.html"
    run(_cli(str(recorded), "--html", str(out)))
    requested: list[str] = []
    with launch() as process:
        context: Any = process.browser.new_context(offline=True)
        context.on("request", lambda request: requested.append(request.url))
        page = context.new_page()
        page.goto(out.as_uri())
        assert page.locator("#verdict").inner_text() == "DIVERGED"
        assert page.locator("#divergence").is_visible()
        assert page.locator("section.turn.diverged .diff .add").count() >= 1
        context.close()
    assert requested == [out.as_uri()]
