"""Delta debugging over cassettes and ``driverkit shrink``: valid candidates, minimal results, the same divergence.

The edits (removing an exchange, an item, events, a fault; merging deltas) must leave a loadable cassette whose
recorded requests still agree with what is left. ``driverkit shrink`` must reduce a long run with one defect to a
handful of events that replay the same way: the bundled ``long-run-cut-stream`` (authored, its stream broken
once), and a run recorded through the SDK (200+ events) with one request tampered with, within a minute of CPU.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
from openai.lib.responses_tool_runner import RegisteredFunction

from conformance import cassettes, rig
from conformance.cassettes import Cassette, JSONObject
from conformance.fake_responses import FAKE_API_KEY, FAKE_BASE_URL, CassetteTransport
from conformance.probes import browser_probe, computer_probe
from conformance.recording import record_client
from conformance.replay import plan_from, replay
from conformance.streams import shrink_command
from conformance.streams.shrink import (
    renumbered,
    shrink,
    size,
    without_events,
    without_exchanges,
    without_item,
)
from conformance.streams.strategies import CutPlan, ItemPlan, RunPlan, ToolsPlan, TurnPlan, render
from tools.cassettes.stream_sources import long_run

LONG_RUN = Path(__file__).resolve().parents[2] / "fixtures" / "streams" / "long-run-cut-stream.jsonl"


def _two_calls() -> Cassette:
    turn = TurnPlan((ItemPlan("function"), ItemPlan("function", function="note")))
    plan = RunPlan(ToolsPlan(functions=("lookup", "note")), (turn, TurnPlan((ItemPlan("message"),))))
    return render(plan)


def _events(cassette: Cassette, exchange: int) -> list[JSONObject]:
    return list(cassette.exchanges[exchange].response.events or ())


def test_removing_an_item_closes_up_the_indices_and_the_completed_output() -> None:
    shrunk = without_item(_two_calls(), 0, 0)
    assert shrunk is not None
    loaded = cassettes.loads(shrunk.dumps())
    events = _events(loaded, 0)
    assert {event.get("output_index") for event in events if "output_index" in event} == {0}
    final = loaded.exchanges[0].response.final_response() or {}
    assert [item["call_id"] for item in cast(list[JSONObject], final["output"])] == ["c2"]


def test_removing_a_recorded_item_removes_it_and_its_output_from_later_requests() -> None:
    cassette = _two_calls()
    body: JSONObject = {
        "input": [
            {"role": "user", "content": "hi"},
            {"type": "function_call", "id": "fc_c1", "call_id": "c1"},
            {"type": "function_call", "id": "fc_c2", "call_id": "c2"},
            {"type": "function_call_output", "call_id": "c1", "output": "a"},
            {"type": "function_call_output", "call_id": "c2", "output": "b"},
        ]
    }
    second = replace(cassette.exchanges[1], request=replace(cassette.exchanges[1].request, body=body))
    recorded = replace(cassette, exchanges=(cassette.exchanges[0], second))
    shrunk = without_item(recorded, 0, 0)
    assert shrunk is not None
    kept = cast(list[JSONObject], (shrunk.exchanges[1].request.body or {})["input"])
    assert [item.get("call_id") for item in kept] == [None, "c2", "c2"]
    assert [
        item.get("call_id")
        for item in cast(list[JSONObject], (without_exchanges(recorded, {0}).exchanges[0].request.body or {})["input"])
    ] == [None]


def test_a_cut_naming_a_removed_event_moves_back_to_the_event_before() -> None:
    turn = TurnPlan((ItemPlan("function"),), cut=CutPlan(5, mid_event=True))
    cassette = render(RunPlan(ToolsPlan(), (turn,)))
    shrunk = without_events(cassette, 0, {5})
    assert shrunk is not None
    [fault] = cassettes.loads(shrunk.dumps()).exchanges[0].faults
    assert fault.fields["after_sequence"] == 4 and fault.fields["mid_event"] is True
    numbered = renumbered(shrunk)
    assert [event["sequence_number"] for event in _events(numbered, 0)] == list(range(len(_events(numbered, 0))))


def test_shrink_keeps_the_smallest_cassette_the_predicate_accepts() -> None:
    cassette = long_run(turns=3)

    def mentions_c5(candidate: Cassette) -> bool:
        return '"call_id":"c5"' in candidate.dumps().replace(" ", "")

    reduction = shrink(cassette, mentions_c5)
    assert mentions_c5(reduction.cassette)
    # The stream's first and terminal events, and the call's added and done events (they go only with the call).
    assert size(reduction.cassette) == 4 and len(reduction.cassette.exchanges) == 1
    assert reduction.removed and reduction.tries > 0


def _arguments(cassette: str, mode: str, out: Path, **extra: Any) -> argparse.Namespace:
    values: dict[str, Any] = {
        "cassette": cassette,
        "mode": mode,
        "driver": None,
        "strict": False,
        "against": None,
        "out": out,
        "max_seconds": 300.0,
    }
    return argparse.Namespace(**{**values, **extra})


def test_the_bundled_long_run_shrinks_to_a_handful_of_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = cassettes.load(LONG_RUN)
    assert size(original) >= 200
    out = tmp_path / "long.shrunk.jsonl"
    assert shrink_command.run(_arguments(str(LONG_RUN), "sync-stream", out)) == 0
    shrunk = cassettes.load(out)
    assert size(shrunk) <= 8, capsys.readouterr().out
    before, after = replay(original, mode="sync-stream"), replay(shrunk, mode="sync-stream")
    assert shrink_command.signature(after, False) == shrink_command.signature(before, False)
    assert replay(shrunk, mode="sync-plain").ok, "the plain replay, which never sees the cut, must still match"
    printed = capsys.readouterr().out
    assert "removed: " in printed and "DIVERGED" in printed
    assert (tmp_path / "long.shrunk.report.txt").read_text(encoding="utf-8").startswith("shrunk from 11 exchange(s)")


def _record(authored: Cassette, path: Path) -> Cassette:
    """Run ``authored`` through the sync runner, streamed, with a recording client: a cassette from the field."""
    plan = plan_from(authored)
    functions = [
        RegisteredFunction(tool=tool, execute=lambda arguments, name=str(tool["name"]): f"{name} answered")  # type: ignore[arg-type, misc]
        for tool in plan.functions
    ]
    browser = rig.browser_toolset("sync", browser_probe("sync", plan.browser_members), confirm=lambda context: True)
    computer = rig.computer_toolset("sync", computer_probe("sync"))
    runner = rig.build_runner("sync", browser=browser, computer=computer, functions=functions)
    transport = CassetteTransport(authored, match="none")
    with record_client(
        path, transport=transport, api_key=FAKE_API_KEY, base_url=FAKE_BASE_URL, max_retries=0
    ) as client:
        rig.run_to_end("sync", runner, client, plan.params, {"stream": True})
    return cassettes.load(path)


def _swap_outputs(cassette: Cassette, exchange: int) -> Cassette:
    """The recording with request ``exchange``'s two call outputs in the wrong order (the one injected defect)."""
    request = cassette.exchanges[exchange].request
    items = list(cast(list[JSONObject], (request.body or {})["input"]))
    outputs = [position for position, item in enumerate(items) if item.get("type") == "function_call_output"][-2:]
    first, second = outputs
    items[first], items[second] = items[second], items[first]
    changed = replace(
        cassette.exchanges[exchange], request=replace(request, body={**(request.body or {}), "input": items})
    )
    exchanges = list(cassette.exchanges)
    exchanges[exchange] = changed
    return replace(cassette, exchanges=tuple(exchanges))


def test_a_recorded_run_with_one_injected_divergence_shrinks_within_a_minute(tmp_path: Path) -> None:
    recorded = _record(long_run(turns=8), tmp_path / "recorded.jsonl")
    assert size(recorded) >= 200 and replay(recorded, mode="sync-stream").ok
    tampered = _swap_outputs(recorded, 5)
    path = tmp_path / "tampered.jsonl"
    cassettes.save(tampered, path)
    before = replay(tampered, mode="sync-stream")
    assert before.divergence is not None and before.divergence.index == 5
    started, cpu = time.perf_counter(), time.process_time()
    assert shrink_command.run(_arguments(str(path), "sync-stream", tmp_path / "small.jsonl")) == 0
    spent_cpu, spent_wall = time.process_time() - cpu, time.perf_counter() - started
    assert spent_cpu < 60, f"shrinking took {spent_cpu:.1f} s of CPU ({spent_wall:.1f} s wall)"
    shrunk = cassettes.load(tmp_path / "small.jsonl")
    assert size(shrunk) <= 10, shrunk.dumps()
    after = replay(shrunk, mode="sync-stream")
    assert shrink_command.signature(after, False) == shrink_command.signature(before, False)


def test_a_replay_that_matches_has_nothing_to_shrink(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert shrink_command.run(_arguments(str(LONG_RUN), "sync-plain", tmp_path / "x.jsonl")) == 1
    assert "matches the recording" in capsys.readouterr().err


def test_an_unreadable_cassette_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text("not json\n", encoding="utf-8")
    assert shrink_command.run(_arguments(str(broken), "sync-plain", tmp_path / "x.jsonl")) == 2
    assert "broken.jsonl:1" in capsys.readouterr().err
