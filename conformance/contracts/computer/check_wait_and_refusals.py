"""wait pauses without input; actions the driver cannot perform raise instead of vanishing."""

from __future__ import annotations

import pytest
from openai.types.responses import computer_action as actions

from conformance.assertions import expect
from conformance.harness.computer_environment import ComputerEnvironment
from conformance.harness.computer_subject import ComputerAction, ComputerSubject

from ._support import click, describe, take_shot

# Anything shorter is indistinguishable from returning at once.
MINIMUM_WAIT_SECONDS = 0.01


@pytest.mark.clause("CO-WAIT-001")
def test_wait_pauses_without_input(computer_subject: ComputerSubject) -> None:
    mark = computer_subject.env.mark()
    outcome = computer_subject.call(actions.Wait(type="wait"))
    wait = outcome.member_call
    expect(wait is not None and wait.raised is None, "CO-WAIT-001", outcome.describe())
    # The wait itself, as the recording saw it: the screenshot the toolset takes after it does not count.
    elapsed = (wait.seconds if wait else None) or 0.0
    expect(elapsed >= MINIMUM_WAIT_SECONDS, "CO-WAIT-001", f"wait returned after {elapsed * 1000:.1f} ms")
    events = computer_subject.env.quiet(mark)
    expect(not events, "CO-WAIT-001", f"wait sent input: {describe(events)}")


def _refused(subject: ComputerSubject, environment: ComputerEnvironment, action: ComputerAction, what: str) -> None:
    mark = environment.mark()
    # Through the toolset, which passes such actions on: the driver itself must refuse them.
    outcome = subject.call(action)
    performed = outcome.member_call
    expect(performed is not None, "CO-UNSUP-001", f"{what}: {outcome.describe()}")
    expect(
        performed is None or performed.raised is not None,
        "CO-UNSUP-001",
        f"{what} returned normally instead of raising",
    )
    events = environment.quiet(mark)
    expect(not events, "CO-UNSUP-001", f"{what} raised but still sent input: {describe(events)}")


@pytest.mark.clause("CO-UNSUP-001")
@pytest.mark.parametrize("keys", [["NoSuchKey"], ["ctrl", "NotAKeyName"]], ids=["alone", "in-combination"])
def test_unknown_key_name_raises(computer_subject: ComputerSubject, keys: list[str]) -> None:
    _refused(
        computer_subject,
        computer_subject.env,
        actions.Keypress(type="keypress", keys=keys),
        f"keypress {keys}",
    )


@pytest.mark.clause("CO-UNSUP-001")
def test_point_outside_the_screenshot_raises(computer_subject: ComputerSubject) -> None:
    shot = take_shot(computer_subject)
    outside = click(shot.image.width + 50, shot.image.height // 2)
    _refused(
        computer_subject,
        computer_subject.env,
        outside,
        f"click at ({outside.x}, {outside.y}) on a {shot.image.width}x{shot.image.height} screenshot",
    )
