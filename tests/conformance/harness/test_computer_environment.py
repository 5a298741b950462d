"""The computer environment's barrier and event log on a real local desktop showing the input recorder page."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.harness.computer_environment import ComputerEnvironment, desktop_environment
from conformance.harness.desktops.x11_connection import open_display
from tests.desktops import needs_x

pytestmark = needs_x

# Typed in one go, these keys make the page queue far more than 64 KiB of events (every input event carries the
# whole textarea) while its first post is in flight: the size at which a keepalive fetch is refused (issue 17).
BURST = "cancel me " * 40


@pytest.fixture(scope="module")
def environment() -> Iterator[ComputerEnvironment]:
    with desktop_environment("local", (1024, 640)) as env:
        yield env


def test_the_barrier_arrives_after_a_burst_of_typing_and_every_key_is_reported(
    environment: ComputerEnvironment,
) -> None:
    from Xlib import XK, X
    from Xlib.ext import xtest

    display = open_display(environment.display)
    try:
        mark = environment.mark()
        for character in BURST:
            keycode = display.keysym_to_keycode(XK.string_to_keysym("space" if character == " " else character))
            assert keycode, f"the desktop's keymap has no key for {character!r}"
            xtest.fake_input(display, X.KeyPress, keycode)
            xtest.fake_input(display, X.KeyRelease, keycode)
        display.sync()
    finally:
        display.close()
    environment.settle()
    assert environment.typed_since(mark) == BURST
    # The page keeps reporting afterwards: a second barrier arrives too.
    environment.settle()
