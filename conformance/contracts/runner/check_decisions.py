"""The Decisions runner over recorded Decisions answers, sync and async.

spec/000 "Selecting guarded actions with Decisions".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from openai.lib.decisions_tool_runner import (
    AsyncDecisionsToolRunner,
    DecisionsToolRunner,
    DecisionsToolRunnerError,
)

from conformance.assertions import expect
from conformance.contracts.runner._harness import load
from conformance.fake_responses import CassetteTransport, SentRequest, fake_async_client, fake_client

FLAVOURS = ["sync", "async"]


@dataclass
class DecisionOutcome:
    result: Any
    error: BaseException | None
    requests: list[SentRequest]
    effects: list[str] = field(default_factory=list)


def run_decisions(
    cassette: str,
    flavour: str,
    *,
    verify: Callable[[str], Any] | None = None,
    candidate_ids: tuple[str, ...] = ("review",),
    observations: tuple[str, ...] = ("page",),
    **options: Any,
) -> DecisionOutcome:
    transport = CassetteTransport(load(cassette), match="endpoint")
    effects: list[str] = []
    seen = iter(observations * 10)

    def observe() -> str:
        return next(seen)

    def make_candidates(observation: Any) -> list[Any]:
        actions: list[Any] = []
        for candidate in candidate_ids:

            def execute(candidate: str = candidate) -> None:
                effects.append(candidate)

            actions.append({"id": candidate, "description": f"Do {candidate}", "execute": execute})
        return [*actions, {"id": "done", "description": "The task is complete", "done": True}]

    params = {"model": "gpt-test", "input": "Review the document"}
    if flavour == "sync":
        runner = DecisionsToolRunner(observe=observe, candidates=make_candidates, verify=verify)
        try:
            result = runner.run(fake_client(transport), params, **options)  # type: ignore[arg-type]
            return DecisionOutcome(result, None, transport.sent, effects)
        except (DecisionsToolRunnerError, ValueError) as error:
            return DecisionOutcome(None, error, transport.sent, effects)

    async def a_observe() -> str:
        return observe()

    async def a_candidates(observation: Any) -> list[Any]:
        candidates = make_candidates(observation)
        for candidate in candidates:
            if "execute" in candidate:
                sync_execute = candidate["execute"]

                async def execute(sync_execute: Callable[[], None] = sync_execute) -> None:
                    sync_execute()

                candidate["execute"] = execute
        return candidates

    a_verify = None
    if verify is not None:

        async def a_verify(observation: Any) -> Any:
            return verify(observation)

    async def go() -> DecisionOutcome:
        runner = AsyncDecisionsToolRunner(observe=a_observe, candidates=a_candidates, verify=a_verify)
        try:
            result = await runner.run(fake_async_client(transport), params, **options)  # type: ignore[arg-type]
            return DecisionOutcome(result, None, transport.sent, effects)
        except (DecisionsToolRunnerError, ValueError) as error:
            return DecisionOutcome(None, error, transport.sent, effects)

    return asyncio.run(go())


@pytest.mark.clause("RN-DEC-001", "RN-DEC-007")
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_verified_after_action_and_done(flavour: str) -> None:
    observed: list[str] = []

    def verify(observation: str) -> bool:
        observed.append(observation)
        return True

    outcome = run_decisions(
        "decisions-act-then-done", flavour, verify=verify, observations=("first", "second", "third")
    )
    expect(outcome.error is None, "RN-DEC-001", f"run failed: {outcome.error!r}")
    expect(outcome.result["status"] == "verified", "RN-DEC-001", f"status {outcome.result['status']}")
    expect(observed == ["third"], "RN-DEC-001", f"verify saw {observed}, expected a fresh observation")
    expect(outcome.effects == ["review"], "RN-DEC-001", f"effects: {outcome.effects}")
    expect(
        outcome.result["attempted_candidate_ids"] == ["review"]
        and outcome.result["completed_candidate_ids"] == ["review"],
        "RN-DEC-001",
        f"receipts: {outcome.result}",
    )
    second = outcome.requests[1].body or {}
    texts = [message["content"] for message in second["input"]]
    expect(texts == ["Review the document", "second"], "RN-DEC-007", f"second request input: {texts}")
    choices = [choice["value"] for choice in second["questions"][0]["choices"]]
    expect(choices == ["review", "done"], "RN-DEC-007", f"choices: {choices}")


@pytest.mark.clause("RN-DEC-002")
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_done_without_verifier_is_unverified(flavour: str) -> None:
    outcome = run_decisions("decisions-done", flavour)
    expect(
        outcome.error is None and outcome.result["status"] == "unverified",
        "RN-DEC-002",
        f"outcome: {outcome.result or outcome.error!r}",
    )
    expect(outcome.effects == [], "RN-DEC-002", "done has no executor")


@pytest.mark.clause("RN-DEC-003")
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_refusal_is_refused(flavour: str) -> None:
    outcome = run_decisions("decisions-refusal", flavour)
    expect(
        outcome.error is None and outcome.result["status"] == "refused",
        "RN-DEC-003",
        f"outcome: {outcome.result or outcome.error!r}",
    )
    expect(outcome.effects == [], "RN-DEC-003", "an action ran after a refusal")


@pytest.mark.clause("RN-DEC-004")
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_done_only_ends_without_request(flavour: str) -> None:
    outcome = run_decisions("decisions-empty", flavour, candidate_ids=())
    expect(outcome.error is None, "RN-DEC-004", f"run failed: {outcome.error!r}")
    expect(outcome.requests == [], "RN-DEC-004", f"{len(outcome.requests)} requests for a done-only run")
    expect(outcome.result["status"] == "unverified", "RN-DEC-004", f"status {outcome.result['status']}")


@pytest.mark.clause("RN-DEC-005")
@pytest.mark.parametrize("count,valid", [(254, True), (255, False)], ids=["255-total", "256-total"])
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_candidate_count_limit(count: int, valid: bool, flavour: str) -> None:
    ids = tuple(f"a{number}" for number in range(count))
    outcome = run_decisions("decisions-done", flavour, candidate_ids=ids)
    if valid:
        expect(outcome.error is None, "RN-DEC-005", f"255 candidates rejected: {outcome.error!r}")
    else:
        expect(
            getattr(outcome.error, "reason", None) == "invalid_candidates",
            "RN-DEC-005",
            f"256 candidates accepted: {outcome.result or outcome.error!r}",
        )
        expect(outcome.requests == [], "RN-DEC-005", "a request was sent with invalid candidates")


@pytest.mark.clause("RN-DEC-005")
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_duplicate_candidate_ids_rejected(flavour: str) -> None:
    outcome = run_decisions("decisions-done", flavour, candidate_ids=("review", "review"))
    expect(
        getattr(outcome.error, "reason", None) == "invalid_candidates",
        "RN-DEC-005",
        f"duplicate IDs accepted: {outcome.result or outcome.error!r}",
    )


@pytest.mark.clause("RN-DEC-006")
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_choice_on_last_request_does_not_run(flavour: str) -> None:
    outcome = run_decisions("decisions-act-then-done", flavour, max_steps=1)
    expect(getattr(outcome.error, "reason", None) == "step_limit", "RN-DEC-006", f"outcome: {outcome.error!r}")
    expect(outcome.effects == [] and len(outcome.requests) == 1, "RN-DEC-006", "the last choice ran")
    expect(tuple(outcome.error.attempted_candidate_ids) == (), "RN-DEC-006", "attempted IDs recorded")  # type: ignore[union-attr]


@pytest.mark.clause("RN-DEC-008")
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_failed_verification_allows_another_choice(flavour: str) -> None:
    answers = iter([False, True])
    outcome = run_decisions("decisions-review-twice", flavour, verify=lambda observation: next(answers))
    expect(
        outcome.error is None and outcome.result["status"] == "verified",
        "RN-DEC-008",
        f"outcome: {outcome.result or outcome.error!r}",
    )
    expect(
        len(outcome.requests) == 4 and outcome.effects == ["review", "review"],
        "RN-DEC-008",
        f"requests {len(outcome.requests)}, effects {outcome.effects}",
    )


@pytest.mark.clause("RN-DEC-008")
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_failed_verification_of_done_only_stops(flavour: str) -> None:
    outcome = run_decisions("decisions-empty", flavour, candidate_ids=(), verify=lambda observation: False)
    expect(outcome.error is not None, "RN-DEC-008", "failed done-only verification must stop")
    expect(outcome.requests == [], "RN-DEC-008", "a request was sent")


@pytest.mark.clause("RN-DEC-005")
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_answer_naming_no_candidate_runs_nothing(flavour: str) -> None:
    outcome = run_decisions("decisions-unknown-choice", flavour)
    expect(getattr(outcome.error, "reason", None) == "invalid_answer", "RN-DEC-005", f"outcome: {outcome.error!r}")
    expect(outcome.effects == [], "RN-DEC-005", f"effects: {outcome.effects}")
