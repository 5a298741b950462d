"""The computer subject without a desktop: actions go through the SDK's toolset, recorded, with both views."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import pytest
from openai.types.responses import computer_action as actions

from conformance.assertions import ClauseViolation
from conformance.harness.computer_environment import ComputerEnvironment
from conformance.harness.computer_subject import ComputerSubject
from conformance.harness.loop import HarnessLoop

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop]

SCREENSHOT = {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"}


class Recorder:
    """All nine methods; remembers what it was asked to do."""

    def __init__(self) -> None:
        self.done: list[str] = []

    def click(self, action: Any) -> None:
        self.done.append(f"click {action.x},{action.y}")

    def double_click(self, action: Any) -> None: ...
    def drag(self, action: Any) -> None: ...
    def move(self, action: Any) -> None: ...
    def scroll(self, action: Any) -> None: ...
    def type(self, action: Any) -> None: ...
    def wait(self, action: Any) -> None: ...

    def keypress(self, action: Any) -> None:
        raise ValueError(f"unknown key {action.keys[0]!r}")

    def screenshot(self) -> dict[str, str]:
        self.done.append("screenshot")
        return SCREENSHOT


class Untyped(Recorder):
    def screenshot(self) -> dict[str, str]:
        return {"image_url": SCREENSHOT["image_url"]}


class NoWait(Recorder):
    wait = None  # type: ignore[assignment]


@pytest.fixture
def loop() -> Iterator[HarnessLoop]:
    made = HarnessLoop(timeout=10.0)
    yield made
    made.close()


def subject_of(driver: object, loop: HarnessLoop) -> ComputerSubject:
    # No desktop is needed to route a call: the environment is only what checks read the page's events from.
    return ComputerSubject(driver, loop, cast(ComputerEnvironment, None))


def test_an_action_gives_the_drivers_result_and_the_sdks_output(loop: HarnessLoop) -> None:
    driver = Recorder()
    outcome = subject_of(driver, loop).call(actions.Click(type="click", x=3, y=4, button="left"))
    assert driver.done == ["click 3,4", "screenshot"]  # the toolset ends every call with a screenshot
    assert outcome.member_call is not None and outcome.raw is None and outcome.sdk_error is None
    assert outcome.output is not None and outcome.output["output"] == SCREENSHOT
    assert [call.member for call in outcome.calls] == ["click", "screenshot"]


def test_the_drivers_own_refusal_is_raised_as_is(loop: HarnessLoop) -> None:
    with pytest.raises(ValueError, match="unknown key"):
        subject_of(Recorder(), loop).act(actions.Keypress(type="keypress", keys=["NoSuchKey"]))


def test_a_screenshot_the_sdk_refuses_blames_the_screenshot_clause(loop: HarnessLoop) -> None:
    with pytest.raises(ClauseViolation) as raised:
        subject_of(Untyped(), loop).act(actions.Click(type="click", x=1, y=1, button="left"))
    assert raised.value.clause_id == "CO-SHOT-001"


def test_a_driver_the_toolset_refuses_blames_the_shape_clause(loop: HarnessLoop) -> None:
    subject = subject_of(NoWait(), loop)
    outcome = subject.call(actions.Screenshot(type="screenshot"))
    assert outcome.toolset_refused and not outcome.calls
    with pytest.raises(ClauseViolation) as raised:
        subject.act(actions.Screenshot(type="screenshot"))
    assert raised.value.clause_id == "CO-SHAPE-002"


def test_a_direct_call_passes_cancelled_only_to_a_method_that_names_it(loop: HarnessLoop) -> None:
    seen: list[object] = []

    class Cooperative(Recorder):
        def type(self, action: Any, *, cancelled: Any = None) -> None:
            seen.append(cancelled)

    subject = subject_of(Cooperative(), loop)
    subject.call_direct("type", actions.Type(type="type", text="x"), cancelled=lambda: True)
    subject.call_direct("wait", actions.Wait(type="wait"), cancelled=lambda: True)  # plain wait: not passed
    assert len(seen) == 1 and callable(seen[0])
    assert subject.takes_cancelled("type") and not subject.takes_cancelled("wait")
