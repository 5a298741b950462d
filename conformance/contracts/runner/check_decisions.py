"""The Decisions runner over recorded Decisions answers, sync and async.

spec/000 "Selecting guarded actions with Decisions".
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect
from conformance.flavours import Flavour
from conformance.rig.decisions import actions, flavours, observations, run_decisions


@pytest.mark.clause("RN-DEC-001", "RN-DEC-007")
@pytest.mark.parametrize("flavour", flavours())
def test_verified_after_action_and_done(flavour: Flavour) -> None:
    observed: list[str] = []

    def verify(observation: str) -> bool:
        observed.append(observation)
        return True

    outcome = run_decisions(
        "decisions-act-then-done", flavour, verify=verify, observation=observations("first", "second", "third")
    ).finished("RN-DEC-001")
    expect(outcome.result["status"] == "verified", "RN-DEC-001", f"status {outcome.result['status']}")
    expect(observed == ["third"], "RN-DEC-001", f"verify saw {observed}, expected a fresh observation")
    expect(outcome.executed == ["review"], "RN-DEC-001", f"effects: {outcome.executed}")
    expect(
        outcome.result["attempted_candidate_ids"] == ["review"]
        and outcome.result["completed_candidate_ids"] == ["review"],
        "RN-DEC-001",
        f"receipts: {outcome.result}",
    )
    second: dict[str, Any] = dict(outcome.requests[1].body or {})
    texts = [message["content"] for message in second["input"]]
    expect(texts == ["Review the document", "second"], "RN-DEC-007", f"second request input: {texts}")
    choices = [choice["value"] for choice in second["questions"][0]["choices"]]
    expect(choices == ["review", "done"], "RN-DEC-007", f"choices: {choices}")


@pytest.mark.clause("RN-DEC-002")
@pytest.mark.parametrize("flavour", flavours())
def test_done_without_verifier_is_unverified(flavour: Flavour) -> None:
    outcome = run_decisions("decisions-done", flavour).finished("RN-DEC-002")
    expect(outcome.result["status"] == "unverified", "RN-DEC-002", f"status {outcome.result['status']}")
    expect(outcome.executed == [], "RN-DEC-002", "done has no executor")


@pytest.mark.clause("RN-DEC-003")
@pytest.mark.parametrize("flavour", flavours())
def test_refusal_is_refused(flavour: Flavour) -> None:
    outcome = run_decisions("decisions-refusal", flavour).finished("RN-DEC-003")
    expect(outcome.result["status"] == "refused", "RN-DEC-003", f"status {outcome.result['status']}")
    expect(outcome.executed == [], "RN-DEC-003", "an action ran after a refusal")


@pytest.mark.clause("RN-DEC-004")
@pytest.mark.parametrize("flavour", flavours())
def test_done_only_ends_without_request(flavour: Flavour) -> None:
    outcome = run_decisions("decisions-empty", flavour, actions=()).finished("RN-DEC-004")
    expect(outcome.requests == [], "RN-DEC-004", f"{len(outcome.requests)} requests for a done-only run")
    expect(outcome.result["status"] == "unverified", "RN-DEC-004", f"status {outcome.result['status']}")


@pytest.mark.clause("RN-DEC-005")
@pytest.mark.parametrize("count,valid", [(254, True), (255, False)], ids=["255-total", "256-total"])
@pytest.mark.parametrize("flavour", flavours())
def test_candidate_count_limit(count: int, valid: bool, flavour: Flavour) -> None:
    ids = tuple(f"a{number}" for number in range(count))
    outcome = run_decisions("decisions-done", flavour, actions=actions(*ids))
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
@pytest.mark.parametrize("flavour", flavours())
def test_duplicate_candidate_ids_rejected(flavour: Flavour) -> None:
    outcome = run_decisions("decisions-done", flavour, actions=actions("review", "review"))
    expect(
        getattr(outcome.error, "reason", None) == "invalid_candidates",
        "RN-DEC-005",
        f"duplicate IDs accepted: {outcome.result or outcome.error!r}",
    )


@pytest.mark.clause("RN-DEC-006")
@pytest.mark.parametrize("flavour", flavours())
def test_choice_on_last_request_does_not_run(flavour: Flavour) -> None:
    outcome = run_decisions("decisions-act-then-done", flavour, max_steps=1)
    expect(getattr(outcome.error, "reason", None) == "step_limit", "RN-DEC-006", f"outcome: {outcome.error!r}")
    expect(outcome.executed == [] and len(outcome.requests) == 1, "RN-DEC-006", "the last choice ran")
    expect(tuple(outcome.error.attempted_candidate_ids) == (), "RN-DEC-006", "attempted IDs recorded")  # type: ignore[union-attr]


@pytest.mark.clause("RN-DEC-008")
@pytest.mark.parametrize("flavour", flavours())
def test_failed_verification_allows_another_choice(flavour: Flavour) -> None:
    answers = iter([False, True])
    outcome = run_decisions("decisions-review-twice", flavour, verify=lambda observation: next(answers)).finished(
        "RN-DEC-008"
    )
    expect(outcome.result["status"] == "verified", "RN-DEC-008", f"status {outcome.result['status']}")
    expect(
        len(outcome.requests) == 4 and outcome.executed == ["review", "review"],
        "RN-DEC-008",
        f"requests {len(outcome.requests)}, effects {outcome.executed}",
    )


@pytest.mark.clause("RN-DEC-008")
@pytest.mark.parametrize("flavour", flavours())
def test_failed_verification_of_done_only_stops(flavour: Flavour) -> None:
    outcome = run_decisions("decisions-empty", flavour, actions=(), verify=lambda observation: False)
    expect(outcome.error is not None, "RN-DEC-008", "failed done-only verification must stop")
    expect(outcome.requests == [], "RN-DEC-008", "a request was sent")


@pytest.mark.clause("RN-DEC-005")
@pytest.mark.parametrize("flavour", flavours())
def test_answer_naming_no_candidate_runs_nothing(flavour: Flavour) -> None:
    outcome = run_decisions("decisions-unknown-choice", flavour)
    expect(getattr(outcome.error, "reason", None) == "invalid_answer", "RN-DEC-005", f"outcome: {outcome.error!r}")
    expect(outcome.executed == [], "RN-DEC-005", f"effects: {outcome.executed}")
