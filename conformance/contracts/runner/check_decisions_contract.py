"""The Decisions runner's promises beyond choosing: candidate rules, run parameters, the result's native decisions,
receipts of a failed executor, cancellation and errors that never fall back to Responses.

spec/000 "Selecting guarded actions with Decisions".
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from openai.lib.decisions_tool_runner import AsyncDecisionsToolRunner, DecisionsToolRunnerCancelledError

from conformance import cassettes
from conformance import python_only_reasons as python_only
from conformance.assertions import expect
from conformance.contracts.runner._scenario import raised_by_cancelled_task
from conformance.fake_responses import CassetteTransport, fake_async_client
from conformance.flavours import Flavour
from conformance.rig.decisions import Action, flavours, run_decisions

Candidates = list[dict[str, Any]]


def _edit(edit: Callable[[Candidates], Candidates]) -> Callable[[Callable[[Any], Candidates]], Any]:
    """An application whose candidates callback answers ``edit`` of the scripted candidates (review, done)."""

    def application(scripted: Callable[[Any], Candidates]) -> Callable[[Any], Candidates]:
        return lambda observation: edit([dict(candidate) for candidate in scripted(observation)])

    return application


def _without(key: str, position: int = 0) -> Callable[[Candidates], Candidates]:
    def edit(candidates: Candidates) -> Candidates:
        candidates[position].pop(key, None)
        return candidates

    return edit


def _with(position: int, **fields: Any) -> Callable[[Candidates], Candidates]:
    def edit(candidates: Candidates) -> Candidates:
        candidates[position].update(fields)
        return candidates

    return edit


def _second_done(candidates: Candidates) -> Candidates:
    return [*candidates, {"id": "finished", "description": "Also complete", "done": True}]


def _done_with_executor(candidates: Candidates) -> Candidates:
    candidates[-1]["execute"] = candidates[0]["execute"]
    return candidates


INVALID_CANDIDATES = [
    pytest.param(_without("description"), id="no-description"),
    pytest.param(_with(0, description=""), id="empty-description"),
    pytest.param(_without("description", -1), id="done-without-description"),
    pytest.param(_second_done, id="two-done"),
    pytest.param(_done_with_executor, id="done-with-executor"),
    pytest.param(_without("execute"), id="action-without-executor"),
    pytest.param(_with(0, execute="review"), id="action-with-non-callable-executor"),
]


@pytest.mark.clause("RN-DEC-013")
@pytest.mark.parametrize("edit", INVALID_CANDIDATES)
@pytest.mark.parametrize("flavour", flavours())
def test_invalid_candidates_are_refused_before_any_request(
    edit: Callable[[Candidates], Candidates], flavour: Flavour
) -> None:
    outcome = run_decisions("decisions-act-then-done", flavour, application_candidates=_edit(edit))
    expect(outcome.error is not None, "RN-DEC-013", f"candidates accepted: {outcome.result!r}")
    expect(outcome.requests == [], "RN-DEC-013", f"{len(outcome.requests)} requests sent with invalid candidates")
    expect(outcome.executed == [], "RN-DEC-013", f"effects: {outcome.executed}")


@pytest.mark.clause("RN-DEC-014")
@pytest.mark.parametrize("flavour", flavours())
def test_result_carries_the_native_decisions(flavour: Flavour) -> None:
    outcome = run_decisions("decisions-act-then-done", flavour).finished("RN-DEC-014")
    served = [exchange.response.body for exchange in cassettes.bundled("decisions-act-then-done").exchanges]
    carried = outcome.result.get("decisions")
    expect(isinstance(carried, list), "RN-DEC-014", f"the result has no decisions list: {outcome.result!r}")
    ids = [_field(decision, "id") for decision in carried]
    expect(ids == ["dec_1", "dec_2"], "RN-DEC-014", f"decision IDs carried: {ids}")
    answers = [_plain(_field(decision, "answers")) for decision in carried]
    expect(
        answers == [body["answers"] for body in served if isinstance(body, dict)],
        "RN-DEC-014",
        f"answers carried: {answers}",
    )


def _field(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)


def _plain(value: Any) -> Any:
    """A native model or dict as plain JSON values, so an SDK model and the served body compare."""
    if hasattr(value, "model_dump"):
        return value.model_dump(exclude_unset=True)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


@pytest.mark.clause("RN-DEC-015")
@pytest.mark.parametrize("flavour", flavours())
def test_failed_executor_is_attempted_not_completed(flavour: Flavour) -> None:
    failing = (Action("review", failure=RuntimeError("the save button vanished after the click")),)
    outcome = run_decisions("decisions-act-then-done", flavour, actions=failing)
    error = outcome.error
    expect(error is not None, "RN-DEC-015", f"the run went on: {outcome.result!r}")
    expect(outcome.executed == ["review"], "RN-DEC-015", f"effects: {outcome.executed}")
    attempted = tuple(getattr(error, "attempted_candidate_ids", ()))
    completed = tuple(getattr(error, "completed_candidate_ids", ()))
    expect(attempted == ("review",), "RN-DEC-015", f"attempted: {attempted}")
    expect(completed == (), "RN-DEC-015", f"completed: {completed}")
    expect(len(outcome.requests) == 1, "RN-DEC-015", f"{len(outcome.requests)} requests: the run went on")


@pytest.mark.clause("RN-DEC-016")
@pytest.mark.parametrize("flavour", flavours())
def test_cancelled_predicate_stops_requests_and_executors(flavour: Flavour) -> None:
    # The stop is asked for by the second observation (after review ran): no second request may follow.
    stop = threading.Event()
    seen: list[str] = []

    def observe() -> str:
        seen.append("observe")
        if len(seen) >= 2:
            stop.set()
        return "page"

    outcome = run_decisions("decisions-review-twice", flavour, observation=observe, cancelled=stop.is_set)
    expect(outcome.error is not None, "RN-DEC-016", f"the run finished: {outcome.result!r}")
    expect(len(outcome.requests) == 1, "RN-DEC-016", f"{len(outcome.requests)} requests after the stop")
    expect(outcome.executed == ["review"], "RN-DEC-016", f"effects: {outcome.executed}")


@pytest.mark.python_sdk_only(python_only.DECISIONS_TASK)
@pytest.mark.clause("RN-DEC-017")
def test_async_cancellation_raises_decisions_cancelled_error() -> None:
    started = asyncio.Event()

    async def observe() -> str:
        return "page"

    async def slow() -> None:
        started.set()
        await asyncio.sleep(10)

    async def candidates(observation: Any) -> Candidates:
        return [
            {"id": "review", "description": "Mark reviewed", "execute": slow},
            {"id": "done", "description": "Already reviewed", "done": True},
        ]

    runner = AsyncDecisionsToolRunner(observe=observe, candidates=candidates)  # type: ignore[arg-type]
    transport = CassetteTransport(cassettes.bundled("decisions-act-then-done"), match="endpoint")
    caught = raised_by_cancelled_task(
        lambda: runner.run(fake_async_client(transport), {"model": "gpt-test", "input": "Review the document"}),
        started,
        BaseException,
    )
    expect(len(caught) == 1, "RN-DEC-017", "the run did not end with an error")
    error = caught[0]
    expect(
        isinstance(error, DecisionsToolRunnerCancelledError),
        "RN-DEC-017",
        f"cancellation raised {type(error).__name__}, not DecisionsToolRunnerCancelledError",
    )
    receipts = (
        tuple(getattr(error, "attempted_candidate_ids", ())),
        tuple(getattr(error, "completed_candidate_ids", ())),
    )
    expect(receipts == (("review",), ()), "RN-DEC-017", f"receipts (attempted, completed): {receipts}")
    reason = getattr(error, "reason", None)
    expect(isinstance(reason, str) and reason != "", "RN-DEC-017", f"reason: {reason!r}")
    expect(runner.close() == {"status": "closed"}, "RN-DEC-017", "the runner was not released")


@pytest.mark.clause("RN-DEC-018")
@pytest.mark.parametrize("flavour", flavours())
def test_model_task_and_safety_identifier_are_sent(flavour: Flavour) -> None:
    params = {"model": "gpt-test", "input": "Review the document", "safety_identifier": "user-7f3a"}
    outcome = run_decisions("decisions-act-then-done", flavour, params=params).finished("RN-DEC-018")
    bodies: list[dict[str, Any]] = [dict(request.body or {}) for request in outcome.requests]
    expect(
        all(body.get("model") == "gpt-test" and body.get("safety_identifier") == "user-7f3a" for body in bodies),
        "RN-DEC-018",
        f"model and safety_identifier sent: {[(b.get('model'), b.get('safety_identifier')) for b in bodies]}",
    )
    first = [message.get("content") for message in bodies[0].get("input", [])]
    expect(first[:1] == ["Review the document"], "RN-DEC-018", f"task sent: {first}")


@pytest.mark.clause("RN-DEC-019")
@pytest.mark.parametrize(
    "extra",
    [
        {"tools": [{"type": "web_search"}]},
        {"store": True},
        {"stream": True},
        {"previous_response_id": "resp_0"},
        {"temperature": 0.2},
    ],
    ids=["tools", "store", "stream", "previous_response_id", "temperature"],
)
@pytest.mark.parametrize("flavour", flavours())
def test_responses_params_and_streaming_are_refused(extra: dict[str, Any], flavour: Flavour) -> None:
    params = {"model": "gpt-test", "input": "Review the document", **extra}
    outcome = run_decisions("decisions-act-then-done", flavour, params=params)
    expect(outcome.error is not None, "RN-DEC-019", f"{extra} accepted: {outcome.result!r}")
    expect(outcome.requests == [], "RN-DEC-019", f"{len(outcome.requests)} requests sent with {extra}")
    expect(outcome.executed == [], "RN-DEC-019", f"effects: {outcome.executed}")


@pytest.mark.clause("RN-DEC-020")
@pytest.mark.parametrize("cassette", ["decisions-access-denied", "decisions-model-not-found"])
@pytest.mark.parametrize("flavour", flavours())
def test_decisions_errors_never_fall_back_to_responses(cassette: str, flavour: Flavour) -> None:
    outcome = run_decisions(cassette, flavour)
    expect(outcome.error is not None, "RN-DEC-020", f"the run went on: {outcome.result!r}")
    endpoints = [request.endpoint for request in outcome.requests]
    expect(endpoints == ["decisions"], "RN-DEC-020", f"requests sent: {endpoints}")
    expect(outcome.executed == [], "RN-DEC-020", f"effects: {outcome.executed}")
