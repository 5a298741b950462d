"""The desktop model: what the documents let the kit expect of a desktop after any sequence of computer actions.

The documents ask each native action to do what its fields define and nothing else, and a driver to raise for an
action it cannot perform rather than send part of it (Browser and desktop drivers, "Computer driver contract").
Over a sequence that means every action starts from the rest the previous one left: no pointer button pressed, no
key held, the pointer where the last pointer action put it, and the typing area holding exactly the text typed.
The model keeps that rest, in the kit's own words (points named by the grid of :data:`COLUMNS` and :data:`ROWS`
over the recorder page's free area, so a sequence reads the same on any screen):

- ``pointer``: the point the last pointer action left the pointer at (None until one has);
- ``buttons`` and ``keys``: what is held between actions, always nothing;
- ``typed``: every character the page has received since the session began.

The judge is the recorder page's own record (:mod:`conformance.harness.computer_environment`): the events an action
caused, and the harness's barrier move after it, which the page records with the buttons and modifiers held and the
pointer's position once it had handled everything sent before. Each judgement blames the clause of the action that
left the desktop in the state it finds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conformance.assertions import expect
from conformance.harness.computer_environment import inserted_text

# The DOM's MouseEvent.buttons bit of each button the page may report held, in the words of a reason.
BUTTON_BITS = {1: "left", 2: "right", 4: "wheel", 8: "back", 16: "forward"}
MODIFIERS = ("ctrl", "alt", "shift", "meta")
# The grid of points an explored action may name: fractions of the page's free area (right of its typing area and
# below its help text), columns lettered and rows numbered, so ``C2`` is the third column's second row.
COLUMNS = {"A": 0.05, "B": 0.27, "C": 0.5, "D": 0.72, "E": 0.95}
ROWS = {"1": 0.08, "2": 0.36, "3": 0.64, "4": 0.92}
GRID = tuple(f"{column}{row}" for row in ROWS for column in COLUMNS)
# The barrier the harness sends after each action moves the pointer one pixel sideways.
BARRIER_NUDGE = 1.0

Event = dict[str, Any]


@dataclass
class DesktopModel:
    """The rest one session's desktop is at between actions, as the documents let the kit expect it."""

    screen_points: dict[str, tuple[int, int]]  # each grid name -> its screen point on this desktop
    tolerance: float  # how far a point may land from the one asked for, given the screenshot's scale
    pointer: str | None = None
    typed: str = ""

    def point(self, name: str) -> tuple[int, int]:
        return self.screen_points[name]

    def describe(self) -> str:
        """The model's rest, for a reason: ``pointer at C2 (812, 444), nothing held, 6 characters typed``."""
        where = "not yet placed" if self.pointer is None else f"at {self.pointer} {self.point(self.pointer)}"
        return f"pointer {where}, nothing held, {len(self.typed)} characters typed"


def held_buttons(barrier: Event) -> list[str]:
    """The buttons the page saw held at the barrier's pointer move."""
    mask = int(barrier.get("buttons") or 0)
    return [name for bit, name in BUTTON_BITS.items() if mask & bit] + (["other"] if mask & ~31 else [])


def held_modifiers(barrier: Event) -> list[str]:
    return [name for name in MODIFIERS if barrier.get(name)]


def keys_left_down(events: Sequence[Event]) -> list[str]:
    """Keys pressed in ``events`` and not released after (repeats of a held key count once)."""
    down: dict[str, str] = {}
    for event in events:
        code = str(event.get("code") or event.get("key"))
        if event.get("type") == "keydown":
            down[code] = str(event.get("key"))
        elif event.get("type") == "keyup":
            down.pop(code, None)
    return list(down.values())


def near(event: Event, point: tuple[float, float], tolerance: float) -> bool:
    return abs(float(event.get("x", -1e9)) - point[0]) <= tolerance and (
        abs(float(event.get("y", -1e9)) - point[1]) <= tolerance
    )


@dataclass(frozen=True)
class RestBlame:
    """The clauses a step blames when the desktop is not at rest after it: a button still held or the pointer
    elsewhere than the action left it (``pointer``), a key still held (``keys``)."""

    pointer: str
    keys: str


def judge_rest(model: DesktopModel, events: Sequence[Event], barrier: Event, where: str, blame: RestBlame) -> None:
    """After an action, nothing is held and the pointer is where the model has it; then the model is the rest."""
    buttons = held_buttons(barrier)
    expect(
        not buttons,
        blame.pointer,
        f"after {where} the page still saw the {' and '.join(buttons)} button held (buttons={barrier.get('buttons')})"
        " at the next pointer move: a button was pressed and never released",
    )
    keys = keys_left_down(events)
    modifiers = held_modifiers(barrier)
    expect(
        not keys and not modifiers,
        blame.keys,
        f"after {where} "
        + (f"the keys {keys} were pressed and never released" if keys else "")
        + ("; " if keys and modifiers else "")
        + (f"the page still saw {'+'.join(modifiers)} held at the next pointer move" if modifiers else ""),
    )
    if model.pointer is not None:
        x, y = model.point(model.pointer)
        expect(
            near(barrier, (x, y), model.tolerance + BARRIER_NUDGE),
            blame.pointer,
            f"after {where} the pointer rests at ({barrier.get('x')}, {barrier.get('y')}), not at {model.pointer} "
            f"({x}, {y}) where the action left it",
        )


def judge_text(model: DesktopModel, events: Sequence[Event], expected: str, where: str, clause: str) -> None:
    """The action inserted exactly ``expected`` into the typing area (nothing, for any action but type)."""
    inserted = inserted_text(events, name_other_edits=True)
    expect(
        inserted == expected,
        clause,
        f"{where} should insert {expected!r} into the typing area, the page received {inserted!r} "
        f"(after {len(model.typed)} characters typed earlier in the sequence)",
    )
    model.typed += inserted
