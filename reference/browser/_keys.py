"""Key names accepted by ``key`` and ``hold_keys``, with the common aliases models use."""

from __future__ import annotations

from typing import Final

from openai.lib.browser import BrowserError

_NAMED: Final = frozenset(
    {
        "Alt",
        "Control",
        "Meta",
        "Shift",
        "Enter",
        "Escape",
        "Tab",
        "Backspace",
        "Delete",
        "Insert",
        "Home",
        "End",
        "PageUp",
        "PageDown",
        "ArrowUp",
        "ArrowDown",
        "ArrowLeft",
        "ArrowRight",
        "Space",
        "CapsLock",
        "ContextMenu",
        *(f"F{number}" for number in range(1, 13)),
    }
)
_ALIASES: Final = {
    "ctrl": "Control",
    "control": "Control",
    "cmd": "Meta",
    "command": "Meta",
    "meta": "Meta",
    "win": "Meta",
    "super": "Meta",
    "alt": "Alt",
    "option": "Alt",
    "shift": "Shift",
    "enter": "Enter",
    "return": "Enter",
    "esc": "Escape",
    "escape": "Escape",
    "tab": "Tab",
    "backspace": "Backspace",
    "delete": "Delete",
    "del": "Delete",
    "insert": "Insert",
    "home": "Home",
    "end": "End",
    "pageup": "PageUp",
    "pagedown": "PageDown",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "arrowup": "ArrowUp",
    "arrowdown": "ArrowDown",
    "arrowleft": "ArrowLeft",
    "arrowright": "ArrowRight",
    "space": "Space",
    "capslock": "CapsLock",
}


def key_name(raw: str) -> str:
    """The Playwright key for a model-supplied name; unknown names fail before any key is pressed."""
    if len(raw) == 1:
        return raw
    if raw in _NAMED:
        return raw
    alias = _ALIASES.get(raw.lower())
    if alias is None and raw.lower().startswith("f") and raw[1:].isdigit() and f"F{raw[1:]}" in _NAMED:
        alias = f"F{raw[1:]}"
    if alias is None:
        raise BrowserError("Unknown key name.")
    return alias
