"""Key names accepted by ``key`` and ``hold_keys``, with the common aliases models use, and holding keys down."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from openai.lib.browser import BrowserError

from reference.flows import Flow, Op, call

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


def holding(keyboard: Any, names: Sequence[str], then: Flow[None]) -> Flow[None]:
    """Press ``names`` down in order, run ``then``, and release what went down in reverse however ``then`` ends.

    A key a member left down would stay held for every later input in the tab, so the release sits in ``finally``.
    """
    held: list[str] = []
    try:
        for name in names:
            yield call(keyboard, "down", name)
            held.append(name)
        yield from then
    finally:
        for name in reversed(held):
            yield call(keyboard, "up", name)


def just(op: Op) -> Flow[None]:
    """A flow of one operation: what ``holding`` runs for a single press or click."""
    yield op
