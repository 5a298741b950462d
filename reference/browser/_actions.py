"""Element actions: click, type, key, scroll, select_option, hover, scroll_to and set_checked.

Every pointer and keyboard effect is a trusted Playwright input event at coordinates the page agent computed
for a current, visible, uncovered control, so the page sees what a person's input would produce. Refs are
rechecked at execution time, which is what binds an approval to the control it named.
"""

from __future__ import annotations

from typing import Any, Final

from openai.lib.browser import (
    BrowserError,
    ClickInput,
    KeyInput,
    ScrollInput,
    SelectOptionInput,
    SetCheckedInput,
    TypeInput,
)

from reference.flows import Flow, call

from ._keys import holding, just, key_name
from ._session import BrowserSession, Cancelled, Tab, check_cancelled, fail_on_agent_error

WHEEL_STEP_PX: Final = 100  # one scroll "amount" unit is one wheel notch
MAX_WHEEL_STEPS: Final = 100
_SETTLE = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


def _mouse_on(
    session: BrowserSession, tab: Tab, target: str, cancelled: Cancelled, method: str, **options: Any
) -> Flow[None]:
    """The mouse ``method`` at the point of the control ``target`` names, found current and uncovered just before.

    The stop request is checked again after the page agent's answer: the round trip may be when it arrived.
    """
    point = yield from session.point(tab, target, **options)
    check_cancelled(cancelled)
    yield call(tab.page.mouse, method, point.x, point.y)


def click(session: BrowserSession, action: ClickInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    yield from _mouse_on(session, tab, action["target"], cancelled, "click")
    return "Clicked."


def hover(session: BrowserSession, action: ClickInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    yield from _mouse_on(session, tab, action["target"], cancelled, "move", enabled=False)
    return "Hovering over the element."


def scroll_to(session: BrowserSession, action: ClickInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    fail_on_agent_error((yield from session.agent(tab, "scrollTo", action["target"])))
    yield call(tab.page, "evaluate", _SETTLE)
    return "Scrolled the element into view; read the page again before acting on it."


def type_text(session: BrowserSession, action: TypeInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    target, text = action["target"], action["text"]
    keyboard = tab.page.keyboard
    if target is None:
        if session.bind_targets:
            # Current focus is not part of what the caller approved; only a ref binds typing to a control.
            raise BrowserError("Typing needs a target ref in this browser.")
        yield call(keyboard, "type", text)
        return "Typed at the current focus."
    yield from _mouse_on(session, tab, target, cancelled, "click")
    prepared = yield from session.agent(tab, "selectContents", target)
    fail_on_agent_error(prepared)
    if not text:
        if not prepared.get("empty"):
            yield call(keyboard, "press", "Delete")
    elif len(text) <= 512:
        yield call(keyboard, "type", text)
    else:
        yield call(keyboard, "insert_text", text)
    return "Typed into the control."


def key(session: BrowserSession, action: KeyInput, cancelled: Cancelled) -> Flow[str]:
    """Press the listed keys as one combination: hold all but the last, press the last, release in reverse."""
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    if not action["keys"]:
        raise BrowserError("No keys were given.")
    names = [key_name(name) for name in action["keys"]]
    keyboard = tab.page.keyboard
    yield from holding(keyboard, names[:-1], just(call(keyboard, "press", names[-1])))
    return "Pressed the keys."


def scroll(session: BrowserSession, action: ScrollInput, cancelled: Cancelled) -> Flow[str]:
    """Scroll with trusted wheel events, ``amount`` notches of 100 CSS pixels (at most 100 notches)."""
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    yield from session.bound_to_observed(tab)
    steps = min(action["amount"], MAX_WHEEL_STEPS)
    if steps == 0:
        return "Nothing to scroll."
    distance = steps * WHEEL_STEP_PX
    dx, dy = {"up": (0, -distance), "down": (0, distance), "left": (-distance, 0), "right": (distance, 0)}[
        action["direction"]
    ]
    yield call(tab.page.mouse, "wheel", dx, dy)
    yield call(tab.page, "evaluate", _SETTLE)
    return "Scrolled."


def select_option(session: BrowserSession, action: SelectOptionInput, cancelled: Cancelled) -> Flow[str]:
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    fail_on_agent_error((yield from session.agent(tab, "select", action["target"], list(action["values"]))))
    return "Selected."


def set_checked(session: BrowserSession, action: SetCheckedInput, cancelled: Cancelled) -> Flow[str]:
    """Click a checkbox only when its state differs; a repeated request leaves it as it is."""
    check_cancelled(cancelled)
    tab = session.tab(action["tab_id"])
    wanted = action["checked"]
    current = yield from session.agent(tab, "checkedState", action["target"])
    fail_on_agent_error(current)
    if current["checked"] is wanted:
        return "Already checked." if wanted else "Already unchecked."
    if current["disabled"]:
        raise BrowserError("That control is disabled or read-only.")
    yield from _mouse_on(session, tab, action["target"], cancelled, "click", role="checkbox")
    after = yield from session.agent(tab, "checkedState", action["target"])
    fail_on_agent_error(after)
    if after["checked"] is not wanted:
        raise BrowserError("The checkbox did not change state.")
    return "Checked." if wanted else "Unchecked."
