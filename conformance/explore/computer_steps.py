"""The desktop step vocabulary: one native computer action each, and what the documents let the kit expect of it.

A step names points by the model's grid (``A1`` to ``E4``), never by pixels, so a shrunk sequence replays on any
screen and reads the same in a certificate. Each step makes exactly one action through the SDK's computer toolset,
waits for the page to handle it, then judges the action's own events (the clause of that action) and the rest the
desktop is left at (:func:`conformance.explore.computer_model.judge_rest`): no button or key held, the pointer where
the action put it, no text but the text typed.

The kit's readings where the documents are brief, all from "each action does what its fields define": a click
presses and releases once (a click soon after another at the same point may count as a double click in the page's
eyes; that is the desktop's doing and not judged), a keypress of keys the driver cannot press raises and sends
nothing (CO-UNSUP-001), and an action other than type inserts no text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openai.types.responses import computer_action as actions

from conformance.assertions import ClauseViolation, expect
from conformance.contracts.computer._support import click
from conformance.harness.computer_subject import SCREENSHOT_ACCEPTED_CLAUSE, TOOLSET_ACCEPTS_CLAUSE, ActionOutcome

from .computer_model import Event, RestBlame, judge_rest, judge_text, near
from .computer_session import ExploredDesktop
from .machine import SequenceStep
from .runner import Replayed

# The DOM's MouseEvent.button for each button an explored click may use.
DOM_BUTTON = {"left": 0, "wheel": 1, "right": 2}
# The keys a keypress names, and the DOM key the page must see for each (lower-cased).
DOM_KEY = {
    "ctrl": "control",
    "alt": "alt",
    "shift": "shift",
    "z": "z",
    "END": "end",
    "ArrowLeft": "arrowleft",
}
MODIFIER_FLAG = {"ctrl": "ctrl", "alt": "alt", "shift": "shift"}
# Key combinations that insert no text and that the desktop's browser leaves to the page (Ctrl+Alt+Z is bound to
# nothing; End and ArrowLeft only move the caret), and combinations with a key no keyboard has. No Escape: with a
# Shift a broken driver left held it opens the browser's task manager over the page, and every later check on the
# desktop would find a page that no longer sees its input.
CHORDS: tuple[tuple[str, ...], ...] = (("ctrl", "alt", "z"), ("END",), ("ArrowLeft",), ("shift",))
IMPOSSIBLE_CHORDS: tuple[tuple[str, ...], ...] = (("ctrl", "NoSuchKey"), ("shift", "NotAKeyName"))
# Short texts, ASCII and not, without line breaks (which would move the caret to a line of its own).
TEXTS = ("hi", "Kit 42", "a,b;c.", "naïve")


def _of(events: Sequence[Event], *types: str) -> list[Event]:
    return [event for event in events if event.get("type") in types]


def _seen(events: Sequence[Event]) -> str:
    """A short, readable event list for a reason."""
    parts = []
    for event in events[:12]:
        fields = [str(event.get("type"))]
        for key in ("x", "y", "button", "buttons", "key", "data", "deltaX", "deltaY"):
            if event.get(key) not in (None, ""):
                fields.append(f"{key}={event[key]}")
        parts.append(" ".join(fields))
    return "[" + "; ".join(parts) + (f" ... (+{len(events) - 12})" if len(events) > 12 else "") + "]"


def _performed(outcome: ActionOutcome, clause: str, where: str) -> None:
    """The action ran to the end: the driver did not raise, and the SDK took the driver and its screenshot."""
    expect(not outcome.toolset_refused, TOOLSET_ACCEPTS_CLAUSE, outcome.describe())
    expect(outcome.raised is None, clause, f"{where}: {outcome.describe()}")
    expect(outcome.sdk_error is None, SCREENSHOT_ACCEPTED_CLAUSE, f"{where}: {outcome.describe()}")


class DesktopStep:
    """One action of a sequence, with what the documents let the kit expect of it."""

    def words(self) -> str:
        raise NotImplementedError

    def perform(self, session: ExploredDesktop) -> None:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.words()


@dataclass(frozen=True)
class Move(DesktopStep):
    to: str

    def words(self) -> str:
        return f"move(to={self.to})"

    def perform(self, session: ExploredDesktop) -> None:
        where, clause = self.words(), "CO-MOVE-001"
        x, y = session.to_shot(self.to)
        outcome = session.act(actions.Move(type="move", x=x, y=y))
        _performed(outcome, clause, where)
        target = session.desktop.point(self.to)
        events, barrier = session.record(
            lambda seen: any(near(event, target, session.desktop.tolerance) for event in _of(seen, "pointermove"))
        )
        presses = _of(events, "mousedown", "mouseup", "click", "dblclick", "auxclick", "contextmenu")
        held = [event for event in _of(events, "pointermove") if event.get("buttons")]
        expect(not presses and not held, clause, f"{where} pressed a button: {_seen(presses or held)}")
        session.desktop.pointer = self.to
        judge_rest(session.desktop, events, barrier, where, RestBlame(clause, "CO-MOVE-001"))
        judge_text(session.desktop, events, "", where, clause)


@dataclass(frozen=True)
class Click(DesktopStep):
    at: str
    button: str = "left"
    keys: tuple[str, ...] = ()

    def words(self) -> str:
        keys = f", keys=[{', '.join(self.keys)}]" if self.keys else ""
        return f"click(at={self.at}, button={self.button}{keys})"

    def perform(self, session: ExploredDesktop) -> None:
        where, model = self.words(), session.desktop
        point = model.point(self.at)
        x, y = session.to_shot(self.at)
        action = click(x, y, self.button, list(self.keys) or None)
        _performed(session.act(action), "CO-CLICK-001", where)
        events, barrier = session.record(lambda seen: bool(_of(seen, "mouseup")))
        downs, ups = _of(events, "mousedown"), _of(events, "mouseup")
        expect(
            len(downs) == 1 and len(ups) == 1,
            "CO-CLICK-001",
            f"{where} should press and release once, the page saw {_seen(downs + ups)}",
        )
        expect(
            all(near(event, point, model.tolerance) for event in downs + ups),
            "CO-CLICK-001",
            f"{where} asked for {self.at} {point}, the page saw {_seen(downs + ups)}",
        )
        wanted = DOM_BUTTON[self.button]
        expect(
            [event.get("button") for event in downs + ups] == [wanted, wanted],
            "CO-CLICK-002",
            f"{where} should press and release DOM button {wanted}, the page saw {_seen(downs + ups)}",
        )
        missing = [key for key in self.keys if not downs[0].get(MODIFIER_FLAG[key])]
        expect(not missing, "CO-CLICK-003", f"{where}: {missing} not held at the press: {_seen(downs)}")
        model.pointer = self.at
        judge_rest(model, events, barrier, where, RestBlame("CO-CLICK-001", "CO-CLICK-003"))
        judge_text(model, events, "", where, "CO-CLICK-001")


@dataclass(frozen=True)
class DoubleClick(DesktopStep):
    at: str

    def words(self) -> str:
        return f"double_click(at={self.at})"

    def perform(self, session: ExploredDesktop) -> None:
        where, model, clause = self.words(), session.desktop, "CO-DCLICK-001"
        point = model.point(self.at)
        x, y = session.to_shot(self.at)
        _performed(session.act(actions.DoubleClick(type="double_click", x=x, y=y)), clause, where)
        events, barrier = session.record(lambda seen: len(_of(seen, "mouseup")) >= 2 and bool(_of(seen, "dblclick")))
        presses = _of(events, "mousedown", "mouseup")
        expect(
            len(presses) == 4 and all(near(event, point, model.tolerance) for event in presses),
            clause,
            f"{where} should press and release twice at {point}, the page saw {_seen(presses)}",
        )
        doubles = _of(events, "dblclick")
        expect(
            bool(doubles) and all(near(event, point, model.tolerance) for event in doubles),
            clause,
            f"{where}: the page saw no double click at {point}: {_seen(events)}",
        )
        model.pointer = self.at
        judge_rest(model, events, barrier, where, RestBlame(clause, clause))
        judge_text(model, events, "", where, clause)


@dataclass(frozen=True)
class Drag(DesktopStep):
    path: tuple[str, ...]

    def words(self) -> str:
        return f"drag(path={'>'.join(self.path)})"

    def perform(self, session: ExploredDesktop) -> None:
        where, model, clause = self.words(), session.desktop, "CO-DRAG-001"
        screen_path = [model.point(name) for name in self.path]
        path = [dict(zip(("x", "y"), session.to_shot(name), strict=True)) for name in self.path]
        _performed(session.act(actions.Drag(type="drag", path=path)), clause, where)  # type: ignore[arg-type]
        events, barrier = session.record(lambda seen: bool(_of(seen, "mouseup")))
        downs, ups = _of(events, "mousedown"), _of(events, "mouseup")
        expect(
            len(downs) == 1 and near(downs[0], screen_path[0], model.tolerance),
            clause,
            f"{where} should press once at {self.path[0]} {screen_path[0]}, the page saw {_seen(downs + ups)}",
        )
        expect(
            len(ups) == 1 and near(ups[0], screen_path[-1], model.tolerance),
            clause,
            f"{where} should release once at {self.path[-1]} {screen_path[-1]}, the page saw {_seen(downs + ups)}",
        )
        held = [e for e in _of(events, "pointermove") if downs[0]["seq"] < e["seq"] < ups[0]["seq"]]
        expect(all(int(e["buttons"]) & 1 for e in held), clause, f"{where}: button released mid-drag: {_seen(held)}")
        # Every point the page saw while the button was held is on the path, in the path's order (the page may
        # see fewer: Chromium merges pointer moves that queue up).
        position = 0
        for event in held:
            while position < len(screen_path) and not near(event, screen_path[position], model.tolerance):
                position += 1
            expect(
                position < len(screen_path),
                clause,
                f"{where}: the held pointer went off the path or back along it: {_seen(held)}",
            )
        model.pointer = self.path[-1]
        judge_rest(model, events, barrier, where, RestBlame(clause, clause))
        judge_text(model, events, "", where, clause)


@dataclass(frozen=True)
class Scroll(DesktopStep):
    at: str
    scroll_x: int
    scroll_y: int

    def words(self) -> str:
        return f"scroll(at={self.at}, scroll_x={self.scroll_x}, scroll_y={self.scroll_y})"

    def perform(self, session: ExploredDesktop) -> None:
        where, model, clause = self.words(), session.desktop, "CO-SCROLL-001"
        point = model.point(self.at)
        x, y = session.to_shot(self.at)
        action = actions.Scroll(type="scroll", x=x, y=y, scroll_x=self.scroll_x, scroll_y=self.scroll_y)
        _performed(session.act(action), clause, where)
        events, barrier = session.record(lambda seen: self._scrolled_enough(_of(seen, "wheel")))
        wheels = _of(events, "wheel")
        expect(
            bool(wheels) and all(near(event, point, model.tolerance) for event in wheels),
            clause,
            f"{where}: expected wheel events at {point}, the page saw {_seen(events)}",
        )
        expect(not _of(events, "mousedown"), clause, f"{where} pressed a button: {_seen(events)}")
        scale = session.shot.scale_x if session.shot else 1.0
        for name, asked, moved in (
            ("scroll_x", self.scroll_x, sum(float(e["deltaX"]) for e in wheels)),
            ("scroll_y", self.scroll_y, sum(float(e["deltaY"]) for e in wheels)),
        ):
            if asked == 0:
                expect(moved == 0, clause, f"{where}: {name}=0, yet the page scrolled {moved:g} on that axis")
                continue
            expect(moved * asked > 0, clause, f"{where}: {name}={asked} scrolled the other way ({moved:g})")
            # Wheels move in notches, in screenshot or screen pixels: a factor of three either way, as the
            # example check allows.
            ratio = abs(moved) / abs(asked)
            expect(1 / 3 <= ratio <= 3 / min(scale, 1.0), clause, f"{where}: {name}={asked} scrolled {moved:g}")
        model.pointer = self.at
        judge_rest(model, events, barrier, where, RestBlame(clause, clause))
        judge_text(model, events, "", where, clause)

    def _scrolled_enough(self, wheels: list[Event]) -> bool:
        """Whether the wheel events so far cover the least distance the judgement accepts on each axis asked for."""
        moved_x, moved_y = sum(abs(float(e["deltaX"])) for e in wheels), sum(abs(float(e["deltaY"])) for e in wheels)
        return bool(wheels) and moved_x >= abs(self.scroll_x) / 3 and moved_y >= abs(self.scroll_y) / 3


@dataclass(frozen=True)
class Keypress(DesktopStep):
    keys: tuple[str, ...]

    def words(self) -> str:
        return f"keypress(keys=[{', '.join(self.keys)}])"

    @property
    def possible_keys(self) -> bool:
        return all(key in DOM_KEY for key in self.keys)

    def perform(self, session: ExploredDesktop) -> None:
        where, model = self.words(), session.desktop
        outcome = session.act(actions.Keypress(type="keypress", keys=list(self.keys)))
        if not self.possible_keys:
            self._refused(session, outcome, where)
            return
        clause = "CO-KEY-001" if len(self.keys) > 1 else "CO-KEY-002"
        _performed(outcome, clause, where)
        wanted = [DOM_KEY[key] for key in self.keys]
        events, barrier = session.record(lambda seen: len(_of(seen, "keyup")) >= len(wanted))
        # A key left held first: it is what the keypress did wrong whichever key it was, and a key held since an
        # earlier action would otherwise read as a wrong key name.
        judge_rest(model, events, barrier, where, RestBlame("CO-KEY-001", "CO-KEY-001"))
        downs = [event for event in _of(events, "keydown") if not event.get("repeat")]
        pressed = [str(event.get("key")).lower() for event in downs]
        expect(pressed == wanted, clause, f"{where} should press {wanted} in order, the page saw {_seen(events)}")
        held = [flag for key, flag in MODIFIER_FLAG.items() if key in self.keys[:-1]]
        missing = [flag for flag in held if not downs[-1].get(flag)]
        expect(not missing, "CO-KEY-001", f"{where}: {missing} not held at the last key's press: {_seen(downs)}")
        judge_text(model, events, "", where, clause)

    def _refused(self, session: ExploredDesktop, outcome: ActionOutcome, where: str) -> None:
        clause = "CO-UNSUP-001"
        expect(not outcome.toolset_refused, TOOLSET_ACCEPTS_CLAUSE, outcome.describe())
        expect(
            outcome.raised is not None,
            clause,
            f"{where} names a key no keyboard has, yet it returned normally: {outcome.describe()}",
        )
        events, barrier = session.record()
        keys = _of(events, "keydown", "keyup", "input")
        expect(not keys, clause, f"{where} raised, yet it sent input: {_seen(keys)}")
        judge_rest(session.desktop, events, barrier, where, RestBlame(clause, clause))


@dataclass(frozen=True)
class TypeText(DesktopStep):
    text: str

    def words(self) -> str:
        return f"type(text={self.text!r})"

    def perform(self, session: ExploredDesktop) -> None:
        where, clause = self.words(), "CO-TYPE-001"
        _performed(session.act(actions.Type(type="type", text=self.text)), clause, where)
        events, barrier = session.record(lambda seen: len(_of(seen, "input")) >= len(self.text))
        judge_text(session.desktop, events, self.text, where, clause)
        judge_rest(session.desktop, events, barrier, where, RestBlame(clause, clause))


def replay_actions(session: ExploredDesktop, steps: Sequence[SequenceStep]) -> Replayed:
    """Perform ``steps`` on a started session, stopping at the first violation (every step is always possible)."""
    performed: list[SequenceStep] = []
    for step in steps:
        performed.append(step)
        try:
            step.perform(session)
        except ClauseViolation as violation:
            return Replayed(tuple(performed), violation, True, {})
    return Replayed(tuple(performed), None, True, {})
