"""wait pauses without input; actions the driver cannot perform raise instead of vanishing."""

from __future__ import annotations

import time
from typing import Any

import pytest
from openai.types.responses import computer_action as actions

from conformance.assertions import expect
from conformance.computer_harness import ComputerEnvironment, call

from ._support import click, describe, take_shot

# Anything shorter is indistinguishable from returning at once.
MINIMUM_WAIT_SECONDS = 0.01


@pytest.mark.clause("CO-WAIT-001")
def test_wait_pauses_without_input(computer_driver: Any, computer_environment: ComputerEnvironment) -> None:
    mark = computer_environment.mark()
    started = time.monotonic()
    call(computer_driver, "wait", actions.Wait(type="wait"))
    elapsed = time.monotonic() - started
    expect(elapsed >= MINIMUM_WAIT_SECONDS, "CO-WAIT-001", f"wait returned after {elapsed * 1000:.1f} ms")
    events = computer_environment.quiet(mark)
    expect(not events, "CO-WAIT-001", f"wait sent input: {describe(events)}")


def _refused(driver: Any, environment: ComputerEnvironment, method: str, action: Any, what: str) -> None:
    mark = environment.mark()
    try:
        call(driver, method, action)
    except Exception:
        pass
    else:
        expect(False, "CO-UNSUP-001", f"{what} returned normally instead of raising")
    events = environment.quiet(mark)
    expect(not events, "CO-UNSUP-001", f"{what} raised but still sent input: {describe(events)}")


@pytest.mark.clause("CO-UNSUP-001")
@pytest.mark.parametrize("keys", [["NoSuchKey"], ["ctrl", "NotAKeyName"]], ids=["alone", "in-combination"])
def test_unknown_key_name_raises(
    computer_driver: Any, computer_environment: ComputerEnvironment, keys: list[str]
) -> None:
    _refused(
        computer_driver,
        computer_environment,
        "keypress",
        actions.Keypress(type="keypress", keys=keys),
        f"keypress {keys}",
    )


@pytest.mark.clause("CO-UNSUP-001")
def test_point_outside_the_screenshot_raises(computer_driver: Any, computer_environment: ComputerEnvironment) -> None:
    shot = take_shot(computer_driver, computer_environment)
    outside = click(shot.image.width + 50, shot.image.height // 2)
    _refused(
        computer_driver,
        computer_environment,
        "click",
        outside,
        f"click at ({outside.x}, {outside.y}) on a {shot.image.width}x{shot.image.height} screenshot",
    )
