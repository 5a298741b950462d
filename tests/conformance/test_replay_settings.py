"""Run settings the traffic cannot show (context_budget limits and decisions, a ledger, step and concurrency
limits) are noted by the recording and rebuilt by replay, so a budgeted or ledgered run replays as it ran."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import openai.lib.responses_tool_runner as rtr
import pytest

from conformance import cassettes
from conformance.contracts.runner._scenario import function_tool, load
from conformance.fake_responses import CassetteTransport, fake_client
from conformance.recording import record_async_client, record_client, recorded_run_options
from conformance.replay import MODES, ReplayError, replay

BIG = "x" * 500
LIMITS = {"max_input_bytes": 1100, "max_input_images": 5}
SUMMARY = "Older output kept by the app."


def _policy(snapshot: Any) -> Any:
    return {"drop_call_ids": [snapshot["eligible_call_ids"][0]], "summary": SUMMARY}


def _recording_options() -> dict[str, Any]:
    """Record against the bundled context-budget cassette, answered by endpoint, with no retries."""
    return {
        "api_key": "sk-test",
        "base_url": "http://rec.invalid/v1",
        "max_retries": 0,
        "transport": CassetteTransport(load("context-budget"), match="endpoint"),
    }


def _record_sync(path: Path) -> None:
    function = rtr.RegisteredFunction(tool=function_tool("lookup"), execute=lambda arguments: BIG)  # type: ignore[arg-type]
    runner = rtr.ResponsesToolRunner(functions=[function])
    checkpoints: list[Any] = []
    with record_client(path, **_recording_options()) as client:
        options = recorded_run_options(
            client,
            context_budget={**LIMITS, "compact": _policy},
            ledger=rtr.ResponsesToolLedger(run_id="app", save=checkpoints.append),
            max_steps=6,
        )
        runner.run(client, {"model": "gpt-test", "input": "hi"}, stream=True, **options)
    assert checkpoints, "the recorded run itself used the ledger"


def test_recording_notes_limits_decisions_and_ledger(tmp_path: Path) -> None:
    path = tmp_path / "budget.jsonl"
    _record_sync(path)
    run = json.loads(path.read_text().splitlines()[0])["meta"]["run"]
    assert run["ledger"] is True and run["max_steps"] == 6
    assert run["context_budget"]["max_input_bytes"] == 1100
    assert run["context_budget"]["decisions"] == [{"drop_call_ids": ["c1"], "summary": SUMMARY}]
    # The ledger's save callback and the policy are code: neither is written.
    assert "save" not in path.read_text() and "compact" not in path.read_text()


@pytest.mark.parametrize("mode", sorted(MODES))
def test_budgeted_ledgered_run_replays_in_every_mode(tmp_path: Path, mode: str) -> None:
    path = tmp_path / "budget.jsonl"
    _record_sync(path)
    report = replay(str(path), mode=mode)
    assert report.ok, report.render()
    assert report.policy_calls == 1
    assert report.checkpoints > 0
    rendered = report.render()
    assert "context_budget (max_input_bytes=1100, max_input_images=5; 1 recorded decision(s))" in rendered
    assert "ledger checkpoints saved" in rendered


def test_without_the_recorded_settings_the_replay_diverges_where_the_budget_acted(tmp_path: Path) -> None:
    path = tmp_path / "budget.jsonl"
    _record_sync(path)
    recorded = cassettes.load(path)
    bare = dataclasses.replace(recorded, meta={"recorded": True})
    report = replay(bare)
    assert not report.ok
    assert report.divergence is not None and report.divergence.index == 2, report.render()
    assert "c1" in report.diff


def test_async_policy_is_recorded_and_replayed(tmp_path: Path) -> None:
    path = tmp_path / "async.jsonl"

    async def lookup(arguments: dict[str, object]) -> str:
        return BIG

    async def policy(snapshot: Any) -> Any:
        return _policy(snapshot)

    async def save(checkpoint: Any) -> None:
        return None

    async def go() -> None:
        runner = rtr.AsyncResponsesToolRunner(
            functions=[rtr.AsyncRegisteredFunction(tool=function_tool("lookup"), execute=lookup)]
        )  # type: ignore[arg-type]
        async with record_async_client(path, **_recording_options()) as client:
            options = recorded_run_options(
                client,
                context_budget={**LIMITS, "compact": policy},
                ledger=rtr.AsyncResponsesToolLedger(run_id="app", save=save),
            )
            await runner.run(client, {"model": "gpt-test", "input": "hi"}, **options)

    asyncio.run(go())
    report = replay(str(path), mode="async-plain")
    assert report.ok and report.policy_calls == 1, report.render()


def test_a_policy_asked_more_often_than_recorded_stops_the_replay_visibly(tmp_path: Path) -> None:
    path = tmp_path / "budget.jsonl"
    _record_sync(path)
    recorded = cassettes.load(path)
    meta = json.loads(json.dumps(dict(recorded.meta)))
    meta["run"]["context_budget"]["decisions"] = []
    report = replay(dataclasses.replace(recorded, meta=meta))
    assert not report.ok
    assert report.policy_calls == 1 and report.error is not None, report.render()


@pytest.mark.parametrize(
    ("run", "problem"),
    [
        ("not an object", "meta.run must be an object"),
        ({"ledgr": True}, "unknown settings: ledgr"),
        ({"ledger": "yes"}, "meta.run.ledger must be true or false"),
        ({"max_steps": -1}, "meta.run.max_steps must be a non-negative integer"),
        ({"context_budget": {"max_input_bytes": "big"}}, "meta.run.context_budget.max_input_bytes"),
        ({"context_budget": {"decisions": {}}}, "decisions must be a list of objects"),
        ({"context_budget": {"compact": "policy"}}, "unknown keys: compact"),
    ],
)
def test_malformed_run_settings_name_the_field(tmp_path: Path, run: object, problem: str) -> None:
    path = tmp_path / "budget.jsonl"
    _record_sync(path)
    cassette = dataclasses.replace(cassettes.load(path), meta={"run": run})
    with pytest.raises(ReplayError, match=problem):
        replay(cassette)


def test_recorded_run_options_needs_a_recording_client() -> None:
    client = fake_client(CassetteTransport(load("one-function")))
    with pytest.raises(TypeError, match="record_client"):
        recorded_run_options(client, max_steps=3)


def test_unknown_budget_keys_are_refused_when_recording(tmp_path: Path) -> None:
    with (
        record_client(
            tmp_path / "x.jsonl", api_key="sk-test", transport=CassetteTransport(load("one-function"))
        ) as client,
        pytest.raises(ValueError, match="max_input_tokens"),
    ):
        recorded_run_options(client, context_budget={"max_input_tokens": 5})
