"""The rig's Decisions run: scripted candidates and observations, the same in both flavours."""

from __future__ import annotations

import pytest

from conformance import cassettes
from conformance.flavours import FLAVOURS, Flavour
from conformance.rig.decisions import Action, actions, observations, run_decisions


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
