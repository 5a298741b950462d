"""Typing enters exactly the text asked for, and key combinations press together and release."""

from __future__ import annotations

import pytest
from openai.types.responses import computer_action as actions

from conformance.assertions import expect
from conformance.harness.computer_environment import ComputerEnvironment
from conformance.harness.computer_subject import ComputerSubject

from ._support import describe, of_type


def _type_and_read(subject: ComputerSubject, environment: ComputerEnvironment, text: str) -> str:
    """Type ``text`` and return what the page saw inserted (wherever earlier checks left the caret)."""
    mark = environment.mark()
    subject.act(actions.Type(type="type", text=text))
    environment.wait_for(mark, lambda seen: len(of_type(seen, "input")) >= len(text))
    environment.settle()
    return environment.typed_since(mark)


@pytest.mark.clause("CO-TYPE-001")
@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Hello, world 42 ~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./", id="ascii"),
        pytest.param("Grüße, señor: 5 € — naïve café", id="latin"),
        pytest.param("日本語 Ελληνικά русский", id="other-scripts"),
        pytest.param("line one\nline two", id="newline"),
    ],
)
def test_type_enters_exactly_the_text(computer_subject: ComputerSubject, text: str) -> None:
    actual = _type_and_read(computer_subject, computer_subject.env, text)
    expect(actual == text, "CO-TYPE-001", f"typed {text!r}; the page received {actual!r}")


@pytest.mark.clause("CO-KEY-001")
def test_keypress_presses_a_combination(computer_subject: ComputerSubject) -> None:
    # Ctrl+Alt+Z: a combination Chromium does not bind, so the page sees it (Ctrl+Shift+A would open a menu).
    mark = computer_subject.env.mark()
    computer_subject.act(actions.Keypress(type="keypress", keys=["ctrl", "alt", "z"]))
    events = computer_subject.env.wait_for(
        mark, lambda seen: sum(1 for e in of_type(seen, "keyup") if e["key"] in ("Control", "Alt", "z", "Z")) >= 3
    )
    downs = [e for e in of_type(events, "keydown") if e["key"].lower() == "z"]
    expect(
        len(downs) == 1 and downs[0]["ctrl"] and downs[0]["alt"] and not downs[0]["shift"],
        "CO-KEY-001",
        f"expected one z press with Ctrl and Alt held (and not Shift), got {describe(events)}",
    )
    released = {e["key"].lower() for e in of_type(events, "keyup")}
    expect({"control", "alt", "z"} <= released, "CO-KEY-001", f"not every key was released: {describe(events)}")


@pytest.mark.clause("CO-KEY-002")
@pytest.mark.parametrize(
    ("name", "dom_key"),
    [
        ("Enter", "Enter"),
        ("ESC", "Escape"),
        ("ArrowLeft", "ArrowLeft"),
        ("BACKSPACE", "Backspace"),
        ("TAB", "Tab"),
        ("END", "End"),
    ],
)
def test_keypress_knows_common_key_names(computer_subject: ComputerSubject, name: str, dom_key: str) -> None:
    mark = computer_subject.env.mark()
    computer_subject.act(actions.Keypress(type="keypress", keys=[name]))
    events = computer_subject.env.wait_for(mark, lambda seen: bool(of_type(seen, "keyup")))
    pressed = [e["key"] for e in of_type(events, "keydown")]
    expect(pressed == [dom_key], "CO-KEY-002", f"keypress [{name!r}] should press {dom_key}, got {describe(events)}")
