"""The per-call cancellation predicate: checked before any effect, and heeded during long work.

These checks call the driver directly (``subject.call_direct``): through the SDK, a predicate that is already
true stops the call before the driver is reached, which would prove nothing about the driver. Only members that
declare the ``cancelled`` keyword are exercised; the documents make declaring it optional.
Clauses: BR-CANCEL-001..004.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import pytest

from conformance.assertions import expect, not_implemented, not_provoked
from conformance.harness.environment import Environment
from conformance.harness.profile import declares_cancelled
from conformance.harness.subject import BrowserSubject
from conformance.members import BY_NAME

from ._effects import brief, mark, since
from ._refs import ref_of, structured_elements
from ._tabs import active_tab, tab_ids

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")


def _declares(subject: BrowserSubject, member: str) -> bool:
    return subject.implements(member) and declares_cancelled(getattr(subject.driver, member))


def _always() -> bool:
    return True


def _sample_calls(subject: BrowserSubject, env: Environment) -> dict[str, dict[str, Any]]:
    """Arguments for every state-changing member the driver implements, each with an observable effect."""
    refs = {}
    listed = structured_elements(subject) or []
    for label in ("Save draft", "Full name", "Shipping speed", "Show help", "Far away button"):
        refs[label] = ref_of(listed, label) or ref_of(structured_elements(subject, label) or [], label)
    state = subject.state()
    active = active_tab(state)
    calls: dict[str, dict[str, Any] | None] = {
        "navigate": {"url": env.url("tabs-a.html"), "tab_id": None},
        "new_tab": {"url": env.url("tabs-b.html")},
        "key": {"keys": ["Enter"], "tab_id": None},
        "scroll": {"direction": "down", "amount": 3, "tab_id": None},
        "type": {"text": "cancelled typing", "target": None, "tab_id": None},
        "click_at": {"tab_id": None, "x": 760, "y": 80, "button": "left", "click_count": 1, "keys": []},
        "hover_at": {"tab_id": None, "x": 920, "y": 80},
        "drag_path": {"tab_id": None, "path": [{"x": 760, "y": 80}, {"x": 920, "y": 80}], "keys": []},
        "hold_keys": {"tab_id": None, "keys": ["Shift"], "duration_ms": 50},
        "run_script": {"tab_id": None, "source": "window.kitRecord('script-ran', {})", "timeout_ms": 2000},
        "close_tab": {"tab_id": active["id"]} if active else None,
    }
    for member, label, extra in (
        ("click", "Save draft", {}),
        ("hover", "Show help", {}),
        ("scroll_to", "Far away button", {}),
        ("select_option", "Shipping speed", {"values": ["express"]}),
    ):
        if refs.get(label):
            calls[member] = {"target": refs[label], "tab_id": None, **extra}
    if refs.get("Full name"):
        calls["type"] = {"text": "cancelled typing", "target": refs["Full name"], "tab_id": None}
    return {member: arguments for member, arguments in calls.items() if arguments is not None}


@pytest.mark.page("actions.html")
@pytest.mark.clause("BR-CANCEL-001")
def test_an_already_cancelled_call_has_no_effect(subject: BrowserSubject, env: Environment) -> None:
    calls = _sample_calls(subject, env)
    members = [m for m in calls if _declares(subject, m) and BY_NAME[m].changes_state]
    if not members:
        not_implemented("the cancelled keyword on any state-changing member")
    offenders = []
    for member in members:
        before = subject.state()
        requests_before = len(env.requests())
        position = mark(subject)
        # A cancelled call may stop by raising; only its effects matter here.
        with contextlib.suppress(Exception):
            subject.call_direct(member, calls[member], cancelled=_always)
        subject.env.settle()
        effects = since(env, position)
        requests = env.requests()[requests_before:]
        after = subject.state()
        if effects or requests or tab_ids(after) != tab_ids(before):
            offenders.append(
                f"{member}: effects {brief(effects, 3)}, requests "
                f"{[r.path for r in requests][:3]}, tabs {tab_ids(before)} -> {tab_ids(after)}"
            )
    expect(not offenders, "BR-CANCEL-001", "cancelled calls still acted: " + "; ".join(offenders))


def _cancel_after(seconds: float) -> Callable[[], bool]:
    deadline = time.monotonic() + seconds
    return lambda: time.monotonic() >= deadline


@pytest.mark.clause("BR-CANCEL-002")
def test_a_running_wait_stops_when_cancelled(subject: BrowserSubject, env: Environment) -> None:
    if not _declares(subject, "wait_for"):
        not_implemented("wait_for with the cancelled keyword")
    started = time.monotonic()
    # Stopping by raising is fine; the point is stopping soon.
    with contextlib.suppress(Exception):
        subject.call_direct(
            "wait_for",
            {"text": "This text never appears", "timeout_ms": 20000, "tab_id": None},
            cancelled=_cancel_after(0.5),
        )
    elapsed = time.monotonic() - started
    expect(elapsed < 6.0, "BR-CANCEL-002", f"wait_for ran {elapsed:.1f} s after cancellation at 0.5 s (timeout 20 s)")


@pytest.mark.clause("BR-CANCEL-003")
def test_a_running_navigation_stops_when_cancelled(subject: BrowserSubject, env: Environment) -> None:
    if not _declares(subject, "navigate"):
        not_implemented("navigate with the cancelled keyword")
    started = time.monotonic()
    # Stopping by raising is fine; the point is stopping soon.
    with contextlib.suppress(Exception):
        subject.call_direct(
            "navigate", {"url": env.url("__slow?ms=8000"), "tab_id": None}, cancelled=_cancel_after(0.5)
        )
    elapsed = time.monotonic() - started
    expect(elapsed < 5.0, "BR-CANCEL-003", f"navigate ran {elapsed:.1f} s after cancellation at 0.5 s (page takes 8 s)")


@pytest.mark.page("busy.html")
@pytest.mark.clause("BR-CANCEL-004")
def test_a_pending_state_read_ends_when_cancelled(subject: BrowserSubject, env: Environment) -> None:
    state = subject.driver.state  # type: ignore[attr-defined]
    # A JavaScript driver's state() takes the cancellation context only when it declares its options parameter.
    if not declares_cancelled(state) or not getattr(subject.driver, "state_takes_options", True):
        not_implemented("state() with the cancelled keyword")
    env.wait_for_effect("busy_soon", timeout=10)
    # The page's main thread is busy from 0.7 s after that record for eight seconds.
    time.sleep(1.2)
    started = time.monotonic()
    # Ending by raising is fine; the point is ending soon.
    with contextlib.suppress(Exception):
        subject.state(cancelled=_cancel_after(0.5))
    elapsed = time.monotonic() - started
    if elapsed < 0.5:
        not_provoked("a state() read that waits on a busy page (this driver answered before the stop request)")
    expect(elapsed < 4.0, "BR-CANCEL-004", f"state() ran {elapsed:.1f} s after cancellation at 0.5 s (page busy 8 s)")
