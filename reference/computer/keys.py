"""Key names the model sends in ``keypress`` actions, and the X keysyms they stand for.

The computer tool names keys loosely (``CTRL``, ``ctrl``, ``Control``, ``ArrowLeft``, ``PAGEDOWN``, ``a``), so a
name is normalised (case, ``_``/``-``/spaces dropped) before lookup. Anything that is neither a known name nor a
single character is rejected: the driver contract forbids silently skipping a key it cannot press.
"""

from __future__ import annotations

from typing import Final

from Xlib import XK


class UnknownKeyError(ValueError):
    """A keypress named a key the driver cannot press."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown key name {name!r}: use a key name such as 'ctrl', 'enter', 'f5' or one character")
        self.name = name


def _normalise(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch not in "_- ")


_NAMED_KEYSYMS: Final[dict[str, str]] = {
    # Modifiers. "cmd"/"meta"/"super"/"win" all mean the platform's command key; on X that is Super_L.
    "ctrl": "Control_L",
    "control": "Control_L",
    "controlleft": "Control_L",
    "controlright": "Control_R",
    "shift": "Shift_L",
    "shiftleft": "Shift_L",
    "shiftright": "Shift_R",
    "alt": "Alt_L",
    "altleft": "Alt_L",
    "altright": "Alt_R",
    "option": "Alt_L",
    "cmd": "Super_L",
    "command": "Super_L",
    "meta": "Super_L",
    "super": "Super_L",
    "win": "Super_L",
    "windows": "Super_L",
    "os": "Super_L",
    # Editing and navigation.
    "enter": "Return",
    "return": "Return",
    "tab": "Tab",
    "space": "space",
    "backspace": "BackSpace",
    "delete": "Delete",
    "del": "Delete",
    "insert": "Insert",
    "esc": "Escape",
    "escape": "Escape",
    "home": "Home",
    "end": "End",
    "pageup": "Prior",
    "pgup": "Prior",
    "pagedown": "Next",
    "pgdn": "Next",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "arrowup": "Up",
    "arrowdown": "Down",
    "arrowleft": "Left",
    "arrowright": "Right",
    "capslock": "Caps_Lock",
    "numlock": "Num_Lock",
    "scrolllock": "Scroll_Lock",
    "printscreen": "Print",
    "print": "Print",
    "pause": "Pause",
    "menu": "Menu",
    "contextmenu": "Menu",
    **{f"f{number}": f"F{number}" for number in range(1, 25)},
}

MODIFIER_KEYSYMS: Final[frozenset[int]] = frozenset(
    XK.string_to_keysym(name)
    for name in ("Control_L", "Control_R", "Shift_L", "Shift_R", "Alt_L", "Alt_R", "Super_L", "Super_R")
)


def char_keysym(char: str) -> int:
    """The keysym that produces ``char``: Latin-1 keysyms equal the code point, others use the Unicode range."""
    code = ord(char)
    if char == "\n":
        return int(XK.string_to_keysym("Return"))
    if char == "\t":
        return int(XK.string_to_keysym("Tab"))
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
        return code
    if code < 0x20 or code == 0x7F:
        raise ValueError(f"cannot type control character U+{code:04X}")
    return 0x01000000 + code


def key_keysym(name: str) -> int:
    """The keysym for one entry of a ``keypress`` action's ``keys`` list."""
    if not isinstance(name, str) or not name:
        raise UnknownKeyError(str(name))
    if len(name) == 1:
        # In a key combination a letter names the key, not the character: "A" in ctrl+A is the a key.
        return char_keysym(name.lower()) if name.isalpha() and name.isascii() else char_keysym(name)
    normalised = _normalise(name)
    if normalised in _NAMED_KEYSYMS:
        return int(XK.string_to_keysym(_NAMED_KEYSYMS[normalised]))
    # Fall back to X's own keysym names ("KP_Enter", "XF86AudioMute", "EuroSign"), matched exactly.
    keysym: int = XK.string_to_keysym(name)
    if keysym == 0:
        raise UnknownKeyError(name)
    return keysym


__all__ = ["MODIFIER_KEYSYMS", "UnknownKeyError", "char_keysym", "key_keysym"]
