"""Computer driver clauses (CO-*): checked by conformance/contracts/computer against a live desktop.

Sections cited are headings of spec 002 ("Browser and desktop drivers") and spec 000 (the Python guide).
Summaries paraphrase the documents; where the documents leave a behaviour to the driver (how far a scroll
moves, how long a wait lasts), the clause asks only for what the action's fields state.
"""

from __future__ import annotations

from conformance.clauses import Clause

_DRIVER = "Computer driver contract"
_MISSED = "Fix missed clicks"
_APPROVE = "Approve actions and own the session"
_CANCEL = "Close and cancel work"

SHAPE_CLAUSES: tuple[Clause, ...] = (
    Clause(
        "CO-SHAPE-001",
        "002",
        _DRIVER,
        "The driver implements all nine methods: click, double_click, drag, keypress, move, scroll, type, "
        "wait and screenshot.",
    ),
    Clause(
        "CO-SHAPE-002",
        "002",
        _DRIVER,
        "Method flavour matches the helper: synchronous methods for ComputerToolset, async def methods for "
        "AsyncComputerToolset; the helper accepts the driver.",
    ),
)

POINTER_CLAUSES: tuple[Clause, ...] = (
    Clause(
        "CO-CLICK-001",
        "002",
        _DRIVER,
        "click presses and releases once at the action's x, y (screenshot coordinates).",
        "click",
    ),
    Clause(
        "CO-CLICK-002",
        "002",
        _DRIVER,
        "click uses the requested button: left, right, wheel (middle), back or forward.",
        "click",
    ),
    Clause(
        "CO-CLICK-003",
        "002",
        _DRIVER,
        "Keys listed in a pointer action's keys are held during the action and released after it.",
        "click",
    ),
    Clause(
        "CO-DCLICK-001",
        "002",
        _DRIVER,
        "double_click gives two left clicks at x, y that the page sees as a double click.",
        "double_click",
    ),
    Clause("CO-MOVE-001", "002", _DRIVER, "move puts the pointer at x, y without pressing a button.", "move"),
    Clause(
        "CO-DRAG-001",
        "002",
        _DRIVER,
        "drag presses at the first path point, moves along the path in order with the button held, and "
        "releases at the last point.",
        "drag",
    ),
    Clause(
        "CO-SCROLL-001",
        "002",
        _DRIVER,
        "scroll scrolls at x, y in the direction of scroll_x and scroll_y, by about their size.",
        "scroll",
    ),
)

KEYBOARD_CLAUSES: tuple[Clause, ...] = (
    Clause(
        "CO-TYPE-001",
        "002",
        _DRIVER,
        "type enters exactly the action's text into the focused control, ASCII and non-ASCII alike.",
        "type",
    ),
    Clause(
        "CO-KEY-001",
        "002",
        _DRIVER,
        "keypress presses the listed keys together as one combination and releases them all.",
        "keypress",
    ),
    Clause(
        "CO-KEY-002",
        "002",
        _DRIVER,
        "keypress understands common key names such as Enter, Escape, arrow keys and Backspace.",
        "keypress",
    ),
)

OTHER_ACTION_CLAUSES: tuple[Clause, ...] = (
    Clause("CO-WAIT-001", "002", _DRIVER, "wait pauses for a measurable time and sends no input.", "wait"),
    Clause(
        "CO-UNSUP-001",
        "002",
        _DRIVER,
        "An action the driver cannot perform (an unknown key name, a point outside the screenshot) raises an "
        "error and sends no input, instead of being silently ignored.",
    ),
)

SCREENSHOT_CLAUSES: tuple[Clause, ...] = (
    Clause(
        "CO-SHOT-001",
        "002",
        _DRIVER,
        "screenshot returns a computer_screenshot with a nonempty image_url (a data URL is fine) or file_id.",
        "screenshot",
    ),
    Clause(
        "CO-SHOT-002",
        "002",
        _MISSED,
        "The screenshot is a decodable image of the whole screen: its size is the screen size, or the screen "
        "size scaled by one factor in both directions.",
        "screenshot",
    ),
    Clause(
        "CO-SHOT-003",
        "002",
        _MISSED,
        "The screenshot is fresh: it shows the screen as it is when the screenshot is taken.",
        "screenshot",
    ),
    Clause(
        "CO-COORD-001",
        "002",
        _MISSED,
        "Actions use the screenshot's coordinate space: clicking where the screenshot shows a control hits "
        "that control, whatever scaling the driver applies.",
    ),
)

CANCEL_CLAUSES: tuple[Clause, ...] = (
    Clause(
        "CO-CANCEL-001",
        "002",
        _CANCEL,
        "A driver method that accepts cancelled checks it during long work (typing, waiting) and stops "
        "sending input once it reports true.",
    ),
    Clause("CO-CANCEL-002", "002", _CANCEL, "A driver method called with cancelled already true sends no input."),
)

FLOW_CLAUSES: tuple[Clause, ...] = (
    Clause(
        "CO-FLOW-001",
        "002",
        _APPROVE,
        "Through ComputerToolset, pending safety checks without an approval that returns exactly True stop "
        "the call before any action reaches the desktop.",
    ),
    Clause(
        "CO-FLOW-002",
        "002",
        _APPROVE,
        "With the safety checks approved, the call's actions reach the desktop once each, in order, and the "
        "output carries a screenshot and the acknowledged checks.",
    ),
    Clause(
        "CO-FLOW-003",
        "002",
        _APPROVE,
        "before_action sees every action, including the final screenshot; refusing one stops it and every "
        "later action from reaching the desktop.",
    ),
    Clause(
        "CO-FLOW-004",
        "000",
        "Mix browser, computer, and ordinary functions",
        "After the toolset's cancellation probe reports true, no further action reaches the desktop.",
    ),
)

CLAUSES: tuple[Clause, ...] = (
    SHAPE_CLAUSES
    + POINTER_CLAUSES
    + KEYBOARD_CLAUSES
    + OTHER_ACTION_CLAUSES
    + SCREENSHOT_CLAUSES
    + CANCEL_CLAUSES
    + FLOW_CLAUSES
)

__all__ = ["CLAUSES"]
