"""What an early_execution policy and before_early_call can and cannot do: the hook cannot widen the policy, one
deferral holds the whole suffix, the policy needs stream and eager, the runner keeps its own copy of it, and a
function named computer stays a function.

spec/000 "Choose which tools can run early"; spec/002 "Stream and resume".

"Early" is judged from the timeline: a call that starts before the ``response.completed`` event ran early.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import Function, Mode, Setup, Timeline, modes, run

BOTH = (Function("lookup"), Function("note"))


def _early(timeline: Timeline, entry: str) -> bool:
    expect(timeline.has(entry), "RN-EARLY-009", f"{entry} never ran: {timeline.entries}")
    return timeline.ran_early(entry)


@pytest.mark.clause("RN-EARLY-009")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_hook_cannot_start_a_call_outside_the_policy(mode: Mode) -> None:
    always_execute = {"before_early_call": lambda call: "execute"}
    setup = Setup(functions=BOTH, early_execution={"functions": ["note"]}, run_options=always_execute)
    outcome = run("function-then-message-same-turn", setup, mode).finished("RN-EARLY-009")
    expect(
        not _early(outcome.timeline, "call:lookup:c1"),
        "RN-EARLY-009",
        f"the hook's execute started lookup, which the policy does not list: {outcome.timeline.entries}",
    )


@pytest.mark.clause("RN-EARLY-010")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_one_deferral_holds_allowed_later_calls(mode: Mode) -> None:
    def hook(call: Any) -> str:
        return "defer" if call.call_id == "c1" else "execute"

    setup = Setup(
        functions=BOTH, early_execution={"functions": ["lookup", "note"]}, run_options={"before_early_call": hook}
    )
    outcome = run("two-functions-order", setup, mode).finished("RN-EARLY-010")
    outcome.timeline.expect_held_behind("RN-EARLY-010", deferred="call:lookup:c1", held="call:note:c2")


@pytest.mark.clause("RN-EARLY-011")
@pytest.mark.parametrize("mode", modes(stream=True, eager=False))
def test_policy_needs_eager(mode: Mode) -> None:
    setup = Setup(early_execution={"functions": ["lookup"]})
    outcome = run("function-then-message-same-turn", setup, mode).finished("RN-EARLY-011")
    outcome.timeline.expect_waited("RN-EARLY-011", "a listed call started early without eager", "call:lookup:c1")


@pytest.mark.clause("RN-EARLY-011")
@pytest.mark.parametrize("mode", modes(stream=False))
def test_policy_without_streaming_runs_after_the_response(mode: Mode) -> None:
    setup = Setup(early_execution={"functions": ["lookup"]})
    outcome = run("function-then-message-same-turn", setup, mode).finished("RN-EARLY-011")
    expect(outcome.timeline.calls() == ["c1"], "RN-EARLY-011", f"calls: {outcome.timeline.calls()}")


@pytest.mark.clause("RN-EARLY-012")
@pytest.mark.parametrize("listed", [True, False], ids=["listed-then-removed", "unlisted-then-added"])
@pytest.mark.parametrize("mode", modes(eager=True))
def test_policy_is_copied_at_construction(listed: bool, mode: Mode) -> None:
    # The caller edits its own policy once the run is under way (on the first stream event, before any item).
    policy: dict[str, Any] = {"functions": ["lookup"] if listed else ["note"]}

    def edit(event: Any) -> None:
        if event.type == "response.created" and policy["functions"]:
            policy["functions"] = [] if listed else ["note", "lookup"]
            policy["computer"] = False

    setup = Setup(functions=BOTH, early_execution=policy, run_options={"on_event": edit})
    outcome = run("function-then-message-same-turn", setup, mode).finished("RN-EARLY-012")
    ran_early = outcome.timeline.ran_early("call:lookup:c1")
    expect(
        ran_early == listed,
        "RN-EARLY-012",
        f"editing the caller's policy changed when lookup ran (early: {ran_early}): {outcome.timeline.entries}",
    )


@pytest.mark.clause("RN-EARLY-013")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_function_named_computer_is_selected_by_name(mode: Mode) -> None:
    setup = Setup(functions=(Function("computer"),), early_execution={"functions": ["computer"], "computer": False})
    outcome = run("computer-named-function", setup, mode).finished("RN-EARLY-013")
    expect(
        outcome.timeline.ran_early("call:computer:c1"),
        "RN-EARLY-013",
        f"the function named computer, listed by name, waited (the computer flag governed it): "
        f"{outcome.timeline.entries}",
    )


@pytest.mark.clause("RN-EARLY-013")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_computer_flag_does_not_select_a_function_named_computer(mode: Mode) -> None:
    setup = Setup(functions=(Function("computer"),), computer=True, early_execution={"functions": [], "computer": True})
    outcome = run("computer-named-function", setup, mode).finished("RN-EARLY-013")
    outcome.timeline.expect_waited(
        "RN-EARLY-013", "the computer flag started the ordinary function named computer early", "call:computer:c1"
    )
