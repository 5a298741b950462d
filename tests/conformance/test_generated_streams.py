"""Generated streams and the rules that judge them: valid cassettes, faithful lifecycles, a documented course.

The strategies must only make cassettes the kit's format accepts (and that survive a trip to disk), whose streams
have the lifecycle a server sends; every kind of fault must be reachable. The course the rules expect must be
the documents' for each fault, and the per-run rules and the cross-mode comparison must catch what they name
(synthetic observations stand in for runs), and nothing on a conforming run. Known-deviation recognizers act only
while their deviation is recorded.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import cast

import pytest
from hypothesis import HealthCheck, given, seed, settings

from conformance import cassettes
from conformance.cassettes import Cassette, JSONObject
from conformance.contracts.runner import check_fuzz_generated_streams
from conformance.contracts.runner._generated import observe
from conformance.deviations import Deviation
from conformance.replay import replay
from conformance.rig import ALL_MODES, parse_mode
from conformance.streams import known
from conformance.streams.events import response_events
from conformance.streams.facts import Facts
from conformance.streams.observation import Observation
from conformance.streams.properties import check_agreement, check_run, expected_course
from conformance.streams.strategies import (
    RUN_FAULTS,
    CutPlan,
    ItemPlan,
    RunFault,
    RunPlan,
    ToolsPlan,
    TurnPlan,
    render,
    run_plans,
)
from conformance.streams.strategies import (
    cassettes as generated,
)

FEW = settings(max_examples=25, database=None, deadline=None, suppress_health_check=list(HealthCheck))


def _plan(*turns: TurnPlan, tools: ToolsPlan | None = None, retries: int = 0) -> Cassette:
    return render(RunPlan(tools or ToolsPlan(functions=("lookup", "note")), turns, max_retries=retries))


def _answer() -> TurnPlan:
    return TurnPlan((ItemPlan("message", text="The answer."),))


def _calls(*items: ItemPlan, **options: object) -> TurnPlan:
    return TurnPlan(items or (ItemPlan("function"),), **options)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------ strategies


@FEW
@given(generated())
def test_every_generated_run_is_a_valid_cassette_that_survives_disk(cassette: Cassette) -> None:
    text = cassette.dumps()
    assert cassettes.loads(text) == cassette
    for exchange in cassette.exchanges:
        events = exchange.response.events
        if events is None:
            assert exchange.response.status >= 400
            continue
        types = [event["type"] for event in events]
        assert types[:2] == ["response.created", "response.in_progress"]
        assert types[-1] in ("response.completed", "response.incomplete", "response.failed")
        # Every item is announced before it is grown and closed.
        opened: set[object] = set()
        for event in events:
            if event["type"] == "response.output_item.added":
                opened.add(event["output_index"])
            elif "output_index" in event:
                assert event["output_index"] in opened, event


def test_a_generated_run_is_written_and_read_back(tmp_path: Path) -> None:
    cassette = _plan(_calls(ItemPlan("function"), ItemPlan("reasoning", text="why")), _answer())
    cassettes.save(cassette, tmp_path / "run.jsonl")
    assert cassettes.load(tmp_path / "run.jsonl") == cassette
    assert replay(str(tmp_path / "run.jsonl"), mode="async-eager").ok


def test_deltas_add_up_to_what_the_item_completes_with() -> None:
    cassette = _plan(_calls(ItemPlan("function"), ItemPlan("message", text="Hello there."), piece=1), _answer())
    events = list(cassette.exchanges[0].response.events or ())
    arguments = "".join(str(event["delta"]) for event in events if event["type"].endswith("arguments.delta"))
    assert json.loads(arguments) == {"reference": "c1"}
    text = "".join(str(event["delta"]) for event in events if event["type"] == "response.output_text.delta")
    assert text == "Hello there."


def test_interleaved_items_open_together_and_close_in_order() -> None:
    response: JSONObject = {
        "id": "r",
        "status": "completed",
        "output": [
            {"type": "function_call", "id": "a", "call_id": "a", "name": "f", "arguments": "{}", "status": "completed"},
            {"type": "function_call", "id": "b", "call_id": "b", "name": "f", "arguments": "{}", "status": "completed"},
        ],
    }
    types = [(event["type"], event.get("output_index")) for event in response_events(response, interleave=True)]
    added = [index for kind, index in types if kind == "response.output_item.added"]
    done = [index for kind, index in types if kind == "response.output_item.done"]
    assert added == done == [0, 1]
    assert types.index(("response.output_item.added", 1)) < types.index(("response.output_item.done", 0))


def _faults(plan: RunPlan) -> set[str]:
    turns = plan.turns
    items = [item for turn in turns for item in turn.items]
    found = {
        "call_status": any(item.fault in ("in_progress", "incomplete") for item in items),
        "arguments": any(item.fault in ("not_json", "not_object", "truncated") for item in items),
        "ending": any(turn.ending != "completed" for turn in turns),
        "server_failed": any(item.fault == "failed" for item in items),
        "undeclared_server": not plan.tools.web_search and any(item.kind == "web_search" for item in items),
        "repeat": any(turn.repeats for turn in turns),
        "cut": any(turn.cut for turn in turns),
        "http": any(turn.http_errors for turn in turns),
        "no_answer": not any(item.kind == "message" and item.text == "The answer." for item in turns[-1].items),
    }
    return {fault for fault, present in found.items() if present}


def _drawn_faults(chosen_seed: int, examples: int, kinds: Sequence[RunFault]) -> set[str]:
    found: set[str] = set()

    @seed(chosen_seed)
    @settings(max_examples=examples, database=None, suppress_health_check=list(HealthCheck))
    @given(run_plans(4, kinds))
    def collect(plan: RunPlan) -> None:
        found.update(_faults(plan))

    collect()
    return found


def test_every_kind_of_fault_is_generated_within_the_quick_budget() -> None:
    # As the fuzz check draws with the quick profile: each shard's searches, their seeds and budgets.
    seen: set[str] = set()
    quick = 12 * check_fuzz_generated_streams.EXAMPLES_PER_PROFILE_EXAMPLE
    for shard, groups in enumerate(check_fuzz_generated_streams.SHARD_FAULTS):
        for number, kinds in enumerate(groups):
            found = _drawn_faults(shard * 100 + number, quick // len(groups), kinds)
            assert set(kinds) <= found or len(kinds) > 1, f"shard {shard} never generated {kinds}"
            seen |= found
    assert seen == set(RUN_FAULTS)


# ------------------------------------------------------------------------------------------ the course


def _course(cassette: Cassette, mode: str) -> tuple[object, ...]:
    course = expected_course(Facts.of(cassette), parse_mode(mode))
    return course.ends, course.clause, course.required, course.requests, tuple(sorted(course.optional))


def test_a_well_formed_run_answers_after_every_call() -> None:
    cassette = _plan(_calls(ItemPlan("function"), ItemPlan("function", function="note")), _answer())
    for mode in ALL_MODES:
        assert _course(cassette, mode.id) == ("answer", "RN-LOOP-004", ("c1", "c2"), 2, ())


def test_an_incomplete_response_stops_with_only_an_eager_head_start() -> None:
    cassette = _plan(_calls(ItemPlan("function"), ending="incomplete"), _answer())
    assert _course(cassette, "sync-plain") == ("stop", "RN-STREAM-010", (), 1, ())
    assert _course(cassette, "async-eager") == ("stop", "RN-STREAM-010", (), 1, ("c1",))


def test_a_cut_stream_stops_a_streamed_run_and_not_a_plain_one() -> None:
    cassette = _plan(_calls(ItemPlan("function"), cut=CutPlan(1, mid_event=True)), _answer())
    assert _course(cassette, "sync-stream")[:4] == ("stop", "RN-STREAM-011", (), 1)
    assert _course(cassette, "sync-plain")[:4] == ("answer", "RN-LOOP-004", ("c1",), 2)


def test_a_retried_failure_costs_one_request_and_changes_nothing_else() -> None:
    cassette = _plan(_calls(http_errors=(503,)), _answer(), retries=1)
    course = expected_course(Facts.of(cassette), parse_mode("sync-stream"))
    assert (course.ends, course.required, course.requests, course.retried) == ("answer", ("c1",), 3, True)
    assert expected_course(Facts.of(cassette), parse_mode("sync-stream-ledger")).ends is None  # OQ-001
    declaring_mcp = _plan(_calls(http_errors=(503,)), _answer(), tools=ToolsPlan(mcp=True), retries=1)
    assert _course(declaring_mcp, "sync-plain")[:2] == ("stop", "RN-MCP-005")


@pytest.mark.parametrize(
    ("item", "ends", "clause"),
    [
        (ItemPlan("function", fault="in_progress"), "stop", "RN-STREAM-008"),
        (ItemPlan("function", fault="not_json"), None, "RN-LOOP-003"),  # what follows is open (OQ-002)
        (ItemPlan("web_search", fault="failed"), "stop", "RN-SERVER-002"),
    ],
)
def test_an_item_that_may_not_run_ends_the_documented_course(item: ItemPlan, ends: str | None, clause: str) -> None:
    cassette = _plan(_calls(ItemPlan("function"), item), _answer(), tools=ToolsPlan(web_search=True))
    assert _course(cassette, "sync-plain")[:3] == (ends, clause, ())


def test_a_request_the_cassette_cannot_answer_is_an_api_failure() -> None:
    assert _course(_plan(_calls()), "async-plain") == ("stop", "RN-ERR-001", ("c1",), 2, ())


# ------------------------------------------------------------------------------------------ the rules


def _run(cassette: Cassette, mode: str) -> Observation:
    return observe(cassette, parse_mode(mode))


def _rules(cassette: Cassette, observation: Observation) -> list[str]:
    return [f"{violation.clause}:{violation.rule}" for violation in check_run(Facts.of(cassette), observation)]


@pytest.mark.parametrize("mode", [mode.id for mode in ALL_MODES])
def test_a_conforming_run_breaks_no_rule(mode: str) -> None:
    cassette = _plan(
        _calls(ItemPlan("function"), ItemPlan("commentary", text="c"), ItemPlan("function", function="note")),
        _calls(ItemPlan("function"), http_errors=(500,)),
        _answer(),
        retries=1,
    )
    assert _rules(cassette, _run(cassette, mode)) == []


def _edited(observation: Observation, entries: Sequence[str], **changes: object) -> Observation:
    return replace(observation, entries=tuple(entries), **changes)  # type: ignore[arg-type]


def test_the_rules_catch_what_they_name() -> None:
    cassette = _plan(_calls(ItemPlan("function"), ItemPlan("function", function="note")), _answer())
    plain = _run(cassette, "sync-plain")
    entries = list(plain.entries)
    twice = [*entries[:2], entries[1], *entries[2:]]
    assert "RN-STREAM-006:ran-twice" in _rules(cassette, _edited(plain, twice))
    swapped = [entry.replace("c1", "cX").replace("c2", "c1").replace("cX", "c2") for entry in entries]
    assert "RN-LOOP-002:out-of-order" in _rules(cassette, _edited(plain, swapped))
    body = plain.bodies[1]
    items = list(cast(list[JSONObject], body["input"]))
    reordered = {**body, "input": [*items[:-2], items[-1], items[-2]]}
    assert "RN-LOOP-002:outputs-out-of-order" in _rules(cassette, replace(plain, bodies=(plain.bodies[0], reordered)))
    stream = _run(cassette, "sync-stream")
    early = [entry for entry in stream.entries if entry != "event:response.completed"]
    assert "RN-STREAM-001:before-completion" in _rules(cassette, _edited(stream, early))
    stopped = replace(plain, error="ToolRunnerError: x", error_type="ToolRunnerError", attempted=("c1",), completed=())
    assert "RN-STREAM-005:receipts" in _rules(cassette, stopped)


def test_a_ledger_run_must_save_around_each_effect() -> None:
    cassette = _plan(_calls(), _answer())
    ledger = _run(cassette, "async-plain-ledger")
    assert _rules(cassette, ledger) == []
    unsaved = [entry for entry in ledger.entries if not entry.startswith("save:")]
    assert "RN-LEDGER-002:no-save-before" in _rules(cassette, _edited(ledger, unsaved))


def test_modes_that_end_differently_disagree_but_an_eager_head_start_does_not() -> None:
    cassette = _plan(_calls(ItemPlan("function"), ending="failed"), _answer())
    facts = Facts.of(cassette)
    runs = [_run(cassette, mode) for mode in ("sync-plain", "sync-stream", "sync-eager")]
    assert check_agreement(facts, runs) == []
    answered = replace(runs[1], error=None, error_type=None, response_id="resp_1")
    [found] = check_agreement(facts, [runs[0], answered])
    assert (found.clause, found.mode, found.reference) == ("RN-LOOP-003", "sync-stream", "sync-plain")


def test_a_fault_only_a_stream_sees_splits_the_comparison() -> None:
    cassette = _plan(_calls(cut=CutPlan(1)), _answer())
    runs = [_run(cassette, mode.id) for mode in ALL_MODES if not mode.ledger]
    assert check_agreement(Facts.of(cassette), runs) == []


def test_a_recognizer_acts_only_while_its_deviation_is_recorded() -> None:
    recorded = Deviation("DEV-RN-006", "RN-LOOP-003", ("runner/x.py::t",), "sdk", "file")
    assert [recognizer.id for recognizer in known.active([recorded])] == ["DEV-RN-006"]
    node = replace(recorded, id="DEV-NODE-RN-005")
    assert [recognizer.id for recognizer in known.active([node])] == ["DEV-NODE-RN-005"]
    assert known.active([]) == ()
    assert known.active([replace(recorded, clause="RN-LOOP-001")]) == ()


# ------------------------------------------------------------------------------------------ replay settings


def test_replay_retries_as_the_header_says() -> None:
    cassette = _plan(_calls(http_errors=(500,)), _answer(), retries=1)
    report = replay(cassette, mode="sync-plain")
    assert report.ok and report.requests_sent == 3 and "max_retries=1" in report.render()
    without = replace(cassette, meta={key: value for key, value in cassette.meta.items() if key != "run"})
    assert not replay(without, mode="sync-plain").ok
