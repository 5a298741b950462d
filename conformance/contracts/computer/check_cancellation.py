"""Driver methods that accept ``cancelled`` stop sending input once it reports true."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import pytest
from openai.types.responses import computer_action as actions

from conformance.assertions import expect, not_implemented
from conformance.harness.computer_subject import ComputerSubject

from ._support import click, describe, of_type, points, take_shot

LONG_TEXT = "cancel me " * 30


def _flips_after(calls: int) -> Callable[[], bool]:
    """A probe that reports False for its first ``calls`` calls and True from then on."""
    seen = [0]

    def cancelled() -> bool:
        seen[0] += 1
        return seen[0] > calls

    return cancelled


@pytest.mark.clause("CO-CANCEL-001")
def test_typing_stops_when_cancelled(computer_subject: ComputerSubject) -> None:
    if not computer_subject.takes_cancelled("type"):
        not_implemented("the cancelled keyword on type")
    mark = computer_subject.env.mark()
    # Stopping by raising is as good as stopping by returning.
    with contextlib.suppress(Exception):
        computer_subject.call_direct("type", actions.Type(type="type", text=LONG_TEXT), cancelled=_flips_after(3))
    computer_subject.env.settle()
    typed = computer_subject.env.typed_since(mark)
    expect(
        len(typed) < len(LONG_TEXT),
        "CO-CANCEL-001",
        f"type typed all {len(LONG_TEXT)} characters although cancelled reported true after its third check",
    )
    expect(LONG_TEXT.startswith(typed), "CO-CANCEL-001", f"cancelled typing left {typed!r}, not a prefix of the text")
    # Nothing may trickle in after the method returned: a second barrier finds the text unchanged.
    computer_subject.env.settle()
    expect(
        computer_subject.env.typed_since(mark) == typed,
        "CO-CANCEL-001",
        "keys kept arriving after the cancelled type returned",
    )


@pytest.mark.clause("CO-CANCEL-001")
def test_wait_ends_early_when_cancelled(computer_subject: ComputerSubject) -> None:
    if not computer_subject.takes_cancelled("wait"):
        not_implemented("the cancelled keyword on wait")
    started = time.monotonic()
    computer_subject.call_direct("wait", actions.Wait(type="wait"))
    full = time.monotonic() - started
    if full < 0.1:
        pytest.skip(f"wait lasts {full * 1000:.0f} ms, too short to tell an early end")
    deadline = time.monotonic() + full / 4
    started = time.monotonic()
    with contextlib.suppress(Exception):
        computer_subject.call_direct("wait", actions.Wait(type="wait"), cancelled=lambda: time.monotonic() > deadline)
    cancelled_after = time.monotonic() - started
    expect(
        cancelled_after < full * 0.75,
        "CO-CANCEL-001",
        f"a {full:.2f} s wait cancelled after {full / 4:.2f} s still lasted {cancelled_after:.2f} s",
    )


@pytest.mark.clause("CO-CANCEL-002")
@pytest.mark.parametrize("method", ["click", "type", "drag"])
def test_already_cancelled_sends_nothing(computer_subject: ComputerSubject, method: str) -> None:
    if not computer_subject.takes_cancelled(method):
        not_implemented(f"the cancelled keyword on {method}")
    shot = take_shot(computer_subject)
    x, y = shot.to_shot(*points(computer_subject.env)[0])
    action = {
        "click": click(x, y),
        "type": actions.Type(type="type", text="never"),
        "drag": actions.Drag(type="drag", path=[{"x": x, "y": y}, {"x": x + 20, "y": y + 20}]),  # type: ignore[list-item]
    }[method]
    mark = computer_subject.env.mark()
    with contextlib.suppress(Exception):
        computer_subject.call_direct(method, action, cancelled=lambda: True)
    events = [e for e in computer_subject.env.quiet(mark) if e.get("type") != "pointermove" or method == "drag"]
    expect(
        not of_type(events, "mousedown", "mouseup", "click", "keydown", "input", "pointermove"),
        "CO-CANCEL-002",
        f"{method} with cancelled already true sent input: {describe(events)}",
    )
