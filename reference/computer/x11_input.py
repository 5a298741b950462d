"""Synthetic pointer and keyboard input on one X display through the XTEST extension, in process.

XTEST events enter the server's input queue like hardware events, so the focused window sees ordinary key and
button events (no ``send_event`` flag that browsers may ignore). Each call flushes and syncs so an action has
reached the server before the driver returns: the next screenshot then shows its effect.

Characters without a key in the current keymap (``ü``, ``€``, ``日``) are typed by temporarily binding their keysym
to keycodes that carry no symbols. Clients learn of the remap through MappingNotify and refetch the keymap
asynchronously, so a short pause follows each remap; binding several characters per remap keeps that pause per
batch rather than per character.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from Xlib import XK, X
from Xlib.ext import xtest

from conformance.harness.desktops.x11_connection import open_display

# How long clients get to pick up a remapped keymap before the remapped keys are pressed. 20 ms lost characters
# on a loaded two-core machine; 50 ms has not.
REMAP_SETTLE_SECONDS = 0.05
# Before the keymap is restored at close, clients get this long to finish translating keys typed under it.
UNBIND_GRACE_SECONDS = 0.2
REPEAT_CLICK_GAP_SECONDS = 0.02

SHIFT_KEYSYM = XK.string_to_keysym("Shift_L")


class InputCancelled(RuntimeError):
    """The caller's cancellation probe turned true while an action was in progress."""


@dataclass(frozen=True)
class KeyStroke:
    """A keycode and whether Shift must be held to produce the wanted keysym from it."""

    keycode: int
    shifted: bool


class X11Input:
    """Pointer and keyboard of one X display. Not thread-safe: one owner issues calls at a time."""

    def __init__(self, display_name: str) -> None:
        try:
            self._display = open_display(display_name)
        except Exception as error:  # python-xlib raises several unrelated types for a bad or missing display
            raise ConnectionError(f"cannot open X display {display_name!r}: {error}") from error
        try:
            if not self._display.has_extension("XTEST"):
                raise RuntimeError(f"X display {display_name!r} has no XTEST extension; input cannot be injected")
            screen = self._display.screen()
            self._root = screen.root
            self.width: int = screen.width_in_pixels
            self.height: int = screen.height_in_pixels
            self._min_keycode: int = self._display.display.info.min_keycode
            self._max_keycode: int = self._display.display.info.max_keycode
            self._strokes, self._spare_keycodes = self._read_keymap()
            self._base_keysyms = frozenset(self._strokes)
            self._pressed_keys: list[int] = []
            self._pressed_buttons: list[int] = []
            self._bound: dict[int, int] = {}  # keysym -> spare keycode, oldest binding first
        except BaseException:
            self._display.close()
            raise

    # -- keymap ----------------------------------------------------------------------------------------------

    def _read_keymap(self) -> tuple[dict[int, KeyStroke], list[int]]:
        count = self._max_keycode - self._min_keycode + 1
        mapping = self._display.get_keyboard_mapping(self._min_keycode, count)
        strokes: dict[int, KeyStroke] = {}
        spare: list[int] = []
        for offset, keysyms in enumerate(mapping):
            keycode = self._min_keycode + offset
            if not any(keysyms):
                spare.append(keycode)
                continue
            # Only the first two levels are used: the others need Mode_switch or ISO_Level3 state.
            for level, keysym in enumerate(keysyms[:2]):
                if keysym and keysym not in strokes:
                    strokes[keysym] = KeyStroke(keycode, shifted=level == 1)
        if not spare:
            raise RuntimeError("the X keymap has no unused keycode, so characters outside it cannot be typed")
        return strokes, spare

    def _bind(self, keysyms: Sequence[int]) -> None:
        """Make every keysym in ``keysyms`` typeable, binding spare keycodes to those the keymap lacks.

        Bindings stay until the keycode is needed for another symbol or the connection closes. Clients refetch
        the keymap some time after the change, and a binding undone before a client has translated the keys
        pressed under it turns those keys into nothing; keeping bindings avoids that race.
        """
        missing = [keysym for keysym in dict.fromkeys(keysyms) if keysym not in self._strokes]
        if not missing:
            return
        wanted = set(keysyms)
        free = [code for code in self._spare_keycodes if code not in self._bound.values()]
        # Reuse the least recently bound keycodes whose symbol is not needed now.
        evictable = [keysym for keysym in self._bound if keysym not in wanted]
        if len(missing) > len(free) + len(evictable):
            raise ValueError(f"cannot bind {len(missing)} symbols with {len(self._spare_keycodes)} spare keys")
        if len(missing) > len(free):
            # Clients translate keys against the keymap they hold when they get to them, which can be well after
            # the keys were sent: rebinding too early would turn keys typed earlier into the new symbols.
            time.sleep(UNBIND_GRACE_SECONDS)
        for keysym in missing:
            if free:
                keycode = free.pop(0)
            else:
                evicted = evictable.pop(0)
                keycode = self._bound.pop(evicted)
                del self._strokes[evicted]
            self._display.change_keyboard_mapping(keycode, [(keysym, keysym)])
            self._bound[keysym] = keycode
            self._strokes[keysym] = KeyStroke(keycode, shifted=False)
        self._display.sync()
        time.sleep(REMAP_SETTLE_SECONDS)

    def _unbind_all(self) -> None:
        for keysym, keycode in self._bound.items():
            self._display.change_keyboard_mapping(keycode, [(X.NoSymbol, X.NoSymbol)])
            del self._strokes[keysym]
        self._bound.clear()
        self._display.sync()

    # -- pointer ---------------------------------------------------------------------------------------------

    def move(self, x: int, y: int) -> None:
        xtest.fake_input(self._display, X.MotionNotify, x=x, y=y, root=self._root)
        self._display.sync()

    def button_down(self, button: int) -> None:
        xtest.fake_input(self._display, X.ButtonPress, button)
        self._pressed_buttons.append(button)
        self._display.sync()

    def button_up(self, button: int) -> None:
        xtest.fake_input(self._display, X.ButtonRelease, button)
        if button in self._pressed_buttons:
            self._pressed_buttons.remove(button)
        self._display.sync()

    def click(self, button: int, count: int = 1) -> None:
        for index in range(count):
            if index:
                # Browsers do not count clicks with identical timestamps as a repeat; a short gap well inside
                # the double-click interval makes the second press a double click.
                time.sleep(REPEAT_CLICK_GAP_SECONDS)
            xtest.fake_input(self._display, X.ButtonPress, button)
            xtest.fake_input(self._display, X.ButtonRelease, button)
            self._display.sync()

    # -- keyboard --------------------------------------------------------------------------------------------

    def _stroke(self, keysym: int, shown: str) -> KeyStroke:
        """The key producing ``keysym``; a keysym without one is an error naming it as ``shown``."""
        stroke = self._strokes.get(keysym)
        if stroke is None:
            raise ValueError(f"keysym {shown} has no key on this keyboard")
        return stroke

    def key_down(self, keysym: int) -> None:
        stroke = self._stroke(keysym, XK.keysym_to_string(keysym) or hex(keysym))
        xtest.fake_input(self._display, X.KeyPress, stroke.keycode)
        self._pressed_keys.append(stroke.keycode)
        self._display.sync()

    def key_up(self, keysym: int) -> None:
        stroke = self._stroke(keysym, hex(keysym))
        xtest.fake_input(self._display, X.KeyRelease, stroke.keycode)
        if stroke.keycode in self._pressed_keys:
            self._pressed_keys.remove(stroke.keycode)
        self._display.sync()

    def has_key(self, keysym: int) -> bool:
        return keysym in self._strokes

    def type_keysyms(self, keysyms: Sequence[int], cancelled: Callable[[], bool] | None = None) -> None:
        """Type each keysym as one key stroke, binding spare keycodes for those the keymap lacks."""
        shift = self._strokes[SHIFT_KEYSYM].keycode
        batch = len(self._spare_keycodes)
        position = 0
        while position < len(keysyms):
            # The next run whose symbols outside the base keymap all fit in the spare keycodes at once.
            end, extra = position, set[int]()
            while end < len(keysyms):
                keysym = keysyms[end]
                if keysym not in self._base_keysyms:
                    if keysym not in extra and len(extra) == batch:
                        break
                    extra.add(keysym)
                end += 1
            run = keysyms[position:end]
            self._bind(run)
            for keysym in run:
                if cancelled is not None and cancelled():
                    raise InputCancelled("typing was cancelled")
                stroke = self._strokes[keysym]
                if stroke.shifted:
                    xtest.fake_input(self._display, X.KeyPress, shift)
                xtest.fake_input(self._display, X.KeyPress, stroke.keycode)
                xtest.fake_input(self._display, X.KeyRelease, stroke.keycode)
                if stroke.shifted:
                    xtest.fake_input(self._display, X.KeyRelease, shift)
                self._display.sync()
            position = end

    # -- lifecycle -------------------------------------------------------------------------------------------

    def release_all(self) -> None:
        """Release every key and button this object pressed and has not released (after a failure midway)."""
        for button in reversed(self._pressed_buttons):
            xtest.fake_input(self._display, X.ButtonRelease, button)
        for keycode in reversed(self._pressed_keys):
            xtest.fake_input(self._display, X.KeyRelease, keycode)
        self._pressed_buttons.clear()
        self._pressed_keys.clear()
        self._display.sync()

    def close(self) -> None:
        try:
            self.release_all()
            if self._bound:
                # Give clients time to translate the last keys typed under these bindings before undoing them.
                time.sleep(UNBIND_GRACE_SECONDS)
                self._unbind_all()
        finally:
            self._display.close()


__all__ = ["REMAP_SETTLE_SECONDS", "InputCancelled", "KeyStroke", "X11Input"]
