"""Computer drivers whose one defect shows only over a sequence of actions, for the computer exploration check.

Each is the reference computer driver with one defect that needs an earlier action on the same driver to show. The
example checks give every action to a fresh driver, so they pass these drivers; exploration must find each defect,
shrink it to a short sequence and blame the clause in brackets:

- ``release_swallowed_after_a_drag``: the first click after a drag presses and never releases (CO-CLICK-001);
- ``moves_drift``: each move lands a few pixels further right than the one before it (CO-MOVE-001);
- ``scroll_flips_after_a_drag``: after a drag, vertical scrolls go the other way (CO-SCROLL-001);
- ``modifier_stuck_after_a_refused_chord``: a key combination it refuses (rightly, sending nothing) leaves its
  modifiers pending, and the next keypress presses them and never releases them (CO-KEY-001).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from Xlib import X
from Xlib.ext import xtest

from reference.computer import XvfbComputerDriver
from reference.computer.driver import BUTTONS, field
from reference.computer.factories import CONFORMANCE_WAIT_SECONDS, DesktopEnvironment
from reference.computer.keys import MODIFIER_KEYSYMS, UnknownKeyError, key_keysym

# How much further right each move lands than the one before: well past the kit's tolerance of a pixel and a half.
DRIFT_PIXELS = 4


class ReleaseSwallowedAfterDragDriver(XvfbComputerDriver):
    """Believes a drag's release is still owed after the drag, and lets the next click's release pay it: that click
    presses its button and never releases it (outside the input's own bookkeeping, so nothing releases it later)."""

    def __init__(self, display: str, **options: Any) -> None:
        super().__init__(display, **options)
        self._release_owed = False

    def drag(self, action: Any, *, cancelled: Any = None) -> None:
        super().drag(action, cancelled=cancelled)
        self._release_owed = True

    def click(self, action: Any, *, cancelled: Any = None) -> None:
        if not self._release_owed:
            super().click(action, cancelled=cancelled)
            return
        self._release_owed = False
        x, y = self._point(action)
        self._move_pointer(x, y)
        display = self._input._display
        xtest.fake_input(display, X.ButtonPress, BUTTONS[field(action, "button")])
        display.sync()


def release_swallowed_after_a_drag(environment: DesktopEnvironment) -> Iterator[ReleaseSwallowedAfterDragDriver]:
    with ReleaseSwallowedAfterDragDriver(environment.display, wait_seconds=CONFORMANCE_WAIT_SECONDS) as driver:
        yield driver


class DriftingMovesDriver(XvfbComputerDriver):
    """Keeps a running offset it adds to every move and never resets: the first move lands right, the n-th
    ``DRIFT_PIXELS * (n - 1)`` pixels right of the point asked for. Clicks, drags and scrolls are not affected."""

    def __init__(self, display: str, **options: Any) -> None:
        super().__init__(display, **options)
        self._drift = 0

    def move(self, action: Any, *, cancelled: Any = None) -> None:
        x, y = self._point(action)
        width = self.screen_size[0]
        target = (min(width - 1, x + self._drift), y)
        self._drift += DRIFT_PIXELS
        self._run(lambda: self._move_pointer(*target))


def moves_drift(environment: DesktopEnvironment) -> Iterator[DriftingMovesDriver]:
    with DriftingMovesDriver(environment.display, wait_seconds=CONFORMANCE_WAIT_SECONDS) as driver:
        yield driver


class ScrollFlipsAfterDragDriver(XvfbComputerDriver):
    """Remembers that a drag happened and from then on scrolls ``scroll_y`` the other way (a sign meant for the
    drag's direction left set); horizontal scrolls and everything before the first drag are right."""

    def __init__(self, display: str, **options: Any) -> None:
        super().__init__(display, **options)
        self._dragged = False

    def drag(self, action: Any, *, cancelled: Any = None) -> None:
        super().drag(action, cancelled=cancelled)
        self._dragged = True

    def scroll(self, action: Any, *, cancelled: Any = None) -> None:
        if self._dragged:
            flipped = {name: field(action, name) for name in ("type", "x", "y", "scroll_x", "scroll_y")}
            flipped["scroll_y"] = -flipped["scroll_y"]
            action = flipped
        super().scroll(action, cancelled=cancelled)


def scroll_flips_after_a_drag(environment: DesktopEnvironment) -> Iterator[ScrollFlipsAfterDragDriver]:
    with ScrollFlipsAfterDragDriver(environment.display, wait_seconds=CONFORMANCE_WAIT_SECONDS) as driver:
        yield driver


class ModifierStuckAfterARefusedChordDriver(XvfbComputerDriver):
    """Refuses a combination with a key it cannot press before pressing anything, as it must, but keeps the
    combination's modifiers as pending; the next keypress it performs presses them first (outside the input's
    bookkeeping) and releases only its own keys, so they stay held."""

    def __init__(self, display: str, **options: Any) -> None:
        super().__init__(display, **options)
        self._pending: list[int] = []

    def keypress(self, action: Any, *, cancelled: Any = None) -> None:
        keys = field(action, "keys")
        if not all(_presses(self, name) for name in keys):
            self._pending = [keysym for keysym in map(_modifier_keysym, keys) if keysym is not None]
            super().keypress(action, cancelled=cancelled)  # raises, pressing nothing
            return
        pending, self._pending = self._pending, []
        display = self._input._display
        for keysym in pending:
            xtest.fake_input(display, X.KeyPress, self._input._strokes[keysym].keycode)
        display.sync()
        super().keypress(action, cancelled=cancelled)


def _presses(driver: XvfbComputerDriver, name: str) -> bool:
    try:
        return driver._input.has_key(key_keysym(name))
    except UnknownKeyError:
        return False


def _modifier_keysym(name: str) -> int | None:
    """The modifier keysym ``name`` names, or None for any other key and for a name no keyboard has."""
    try:
        keysym = key_keysym(name)
    except UnknownKeyError:
        return None
    return keysym if keysym in MODIFIER_KEYSYMS else None


def modifier_stuck_after_a_refused_chord(
    environment: DesktopEnvironment,
) -> Iterator[ModifierStuckAfterARefusedChordDriver]:
    with ModifierStuckAfterARefusedChordDriver(environment.display, wait_seconds=CONFORMANCE_WAIT_SECONDS) as driver:
        yield driver
