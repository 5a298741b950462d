"""The rig's Decisions run: scripted candidates and observations, the same in both flavours."""

from __future__ import annotations

import pytest

from conformance import cassettes
from conformance.flavours import FLAVOURS, Flavour
from conformance.rig.decisions import Action, actions, flavours, observations, run_decisions, shared_observation
from conformance.rig.modes import use_sdk


def test_actions_keep_order_and_repeats() -> None:
    assert actions("a", "b", "a") == (Action("a"), Action("b"), Action("a"))


def test_observations_come_in_turn_and_start_over() -> None:
    observe = observations("first", "second")
    assert [observe() for _ in range(3)] == ["first", "second", "first"]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_chosen_action_runs_and_is_traced(flavour: Flavour) -> None:
    seen: list[str] = []
    run = run_decisions(
        "decisions-act-then-done",
        flavour,
        observation=observations("one", "two", "three"),
        verify=lambda observation: seen.append(observation) or True,
    )
    assert run.error is None and run.result["status"] == "verified"
    assert run.executed == ["review"]
    assert seen == ["three"]
    assert len(run.requests) == 2


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_failing_executor_is_captured_as_the_run_error(flavour: Flavour) -> None:
    run = run_decisions(
        cassettes.bundled("decisions-act-then-done"), flavour, actions=(Action("review", RuntimeError("no")),)
    )
    assert run.executed == ["review"]
    assert run.error is not None and run.result is None


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_run_options_reach_the_runner(flavour: Flavour) -> None:
    run = run_decisions("decisions-act-then-done", flavour, max_steps=1)
    assert getattr(run.error, "reason", None) == "step_limit"
    assert run.executed == []


def test_flavours_follow_the_sdk_under_check() -> None:
    try:
        use_sdk("node")
        assert flavours() == ("node",)
    finally:
        use_sdk("python")
    assert flavours() == FLAVOURS


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_done_flag_that_is_not_true_leaves_no_done_candidate(flavour: Flavour) -> None:
    run = run_decisions("decisions-done", flavour, done=1)
    assert getattr(run.error, "reason", None) == "invalid_candidates"
    assert run.requests == []


def test_a_shared_observation_edits_its_own_object_and_what_candidates_receive() -> None:
    application = shared_observation("sync", [{"type": "input_text", "text": "queue"}])
    received = [{"type": "input_text", "text": "queue"}]
    answered = application.candidates(lambda seen: [seen])(received)
    assert answered == [received]
    edited = [
        {"type": "input_text", "text": "changed by the application"},
        {"type": "input_text", "text": "appended later"},
    ]
    assert received == edited and application.observe() == edited


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_application_candidates_callback_is_the_one_registered(flavour: Flavour) -> None:
    application = shared_observation(flavour, [{"type": "input_text", "text": "queue"}])
    run = run_decisions(
        "decisions-act-then-done",
        flavour,
        observation=application.observe,
        application_candidates=application.candidates,
    )
    assert run.error is None and run.executed == ["review"]
    # The second observation is the edited object: the application really shared it.
    second = (run.requests[1].body or {})["input"][-1]["content"]
    assert second[0]["text"] == "changed by the application"
