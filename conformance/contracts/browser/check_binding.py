"""Target-bound consent: when consent is tied to a control, focus-dependent input is refused.

The check asks the factory for ``bind_targets=True``. A driver that shows no sign of that mode (both ``key``
and ``type`` with a null target still work, or it never had ``key`` and ``type`` works) is reported as not
implementing it rather than failing, since hints may be ignored; dropping ``key`` for the session is a sign. The
coordinate check asks for that sign only when the input acted.
Clauses: BR-BIND-001..004.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect, not_implemented, precondition, precondition_failed
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject

from ._effects import await_effect, brief, effect_with, input_effects_since, mark, since
from ._expectations import expect_refused
from ._refs import require_ref
from ._tabs import expect_valid_state

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")


def _shows_bound_consent(subject: BrowserSubject) -> bool:
    """Whether the driver shows it took bind_targets up: it dropped key for the session, or it refuses input at the
    focus (type with a null target, or key), which bound consent forbids and a driver ignoring the hint performs."""
    if subject.probed is not None and "key" in subject.probed.implemented and not subject.implements("key"):
        return True
    attempts = (("type", {"text": "k", "target": None}), ("key", {"keys": ["Shift"]}))
    return any(
        subject.implements(member) and subject.call(member, tab_id=None, **arguments).raised is not None
        for member, arguments in attempts
    )


@pytest.mark.page("actions.html")
@pytest.mark.hints(bind_targets=True)
@pytest.mark.clause("BR-BIND-001", "BR-BIND-002")
def test_bound_consent_refuses_focus_dependent_input(subject: BrowserSubject, env: Environment) -> None:
    subject.require("type")
    await_effect(subject, "BR-BIND-001", "focused", effect_with(target="notes"), what="Notes taking focus")

    position = mark(subject)
    typed = subject.call("type", text="typed at the focus", target=None, tab_id=None)
    subject.env.settle()
    typed_effects = input_effects_since(env, position, ignore={"mouseover"})

    key_effects = []
    pressed = None
    if subject.implements("key"):
        position = mark(subject)
        pressed = subject.call("key", keys=["Enter"], tab_id=None)
        subject.env.settle()
        key_effects = input_effects_since(env, position, ignore={"mouseover"})
    type_refused = typed.raised is not None and not typed_effects
    # Hints may be ignored, so the driver must show it took bind_targets up: by refusing key or type at the
    # focus, or by dropping key for this session. A driver that never had key and lets type act shows nothing.
    dropped_key = pressed is None and subject.probed is not None and "key" in subject.probed.implemented
    if pressed is None and not dropped_key and not type_refused:
        not_implemented(
            "target-bound consent (hints.bind_targets=True): type(target=None) acted and the driver has no key "
            "member, so nothing shows it took the hint up (a driver may ignore hints)"
        )
    key_refused = pressed is None or (pressed.raised is not None and not key_effects)
    if not key_refused and not type_refused:
        not_implemented("target-bound consent (hints.bind_targets=True): key and type(target=None) both acted")

    expect_refused(typed, "BR-BIND-001", "type with a null target depends on focus")
    expect(not typed_effects, "BR-BIND-001", f"type(target=None) still reached the page: {brief(typed_effects)}")
    if pressed is not None:
        expect_refused(pressed, "BR-BIND-002", "key presses at the current focus")
        expect(not key_effects, "BR-BIND-002", f"key still reached the page: {brief(key_effects)}")


@pytest.mark.page("actions.html")
@pytest.mark.hints(bind_targets=True)
@pytest.mark.clause("BR-BIND-003")
def test_bound_consent_refuses_a_ref_from_a_replaced_document(subject: BrowserSubject, env: Environment) -> None:
    # A ref read from one document must not act on its replacement, even one that looks the same.
    subject.require("navigate")
    ref = require_ref(subject, "click", "Save draft")
    position = mark(subject)
    subject.call("navigate", url=env.url("actions.html?second=1"), tab_id=None)
    await_effect(subject, "BR-BIND-003", "load", what="the page loading again", after=position)
    position = mark(subject)
    stale = subject.call("click", target=ref, tab_id=None)
    subject.env.settle()
    clicks = since(env, position, "click")
    expect_refused(stale, "BR-BIND-003", "the ref belongs to a document that has been replaced")
    expect(not clicks, "BR-BIND-003", f"a ref from the old document clicked the new one: {brief(clicks)}")


@pytest.mark.page("bound-shift.html")
@pytest.mark.hints(bind_targets=True)
@pytest.mark.clause("BR-BIND-004")
def test_bound_consent_refuses_coordinate_input_after_the_page_changed(
    subject: BrowserSubject, env: Environment
) -> None:
    # Coordinates name no control, so with target-bound consent they are bound to the document the approval saw.
    # bound-shift.html replaces itself with a look-alike three seconds after loading; the check lets that happen
    # while the approval is pending, after the SDK's prior state read.
    member = next((m for m in ("click_at", "hover_at", "scroll") if subject.implements(m)), None)
    if member is None:
        not_implemented("click_at, hover_at or scroll (input that names no control)")
    arguments: dict[str, Any] = {"tab_id": None}
    if member == "click_at":
        arguments.update(x=180, y=130, button="left", click_count=1, keys=[])
    elif member == "hover_at":
        arguments.update(x=180, y=130)
    else:
        arguments.update(direction="down", amount=3)
    second_document = effect_with(second=True)
    changed_early: list[bool] = []

    def page_navigates_meanwhile() -> None:
        changed_early.append(env.poll_effect("document", second_document, 0) is not None)
        env.wait_for_effect("document", second_document, timeout=10)
        env.settle()

    position = mark(subject)
    outcome = subject.call(member, while_deciding=page_navigates_meanwhile, **arguments)
    if changed_early and changed_early[0]:
        precondition_failed("BR-BIND-004", "the page changed before the approval's state read (a slow machine)")
    if not changed_early:
        # The SDK reads state before asking for approval; a state that breaks a state rule is the cause.
        expect_valid_state(subject, "BR-BIND-004", f"{member} that never reached the approval callback")
    precondition(bool(changed_early), "BR-BIND-004", f"{member} was never put to the approval callback")
    subject.env.settle()
    landed = [e for e in input_effects_since(env, position) if e.get("kind") not in ("focus",)]
    if outcome.raised is None and not _shows_bound_consent(subject):
        not_implemented(
            f"target-bound consent (hints.bind_targets=True): {member} acted on the replaced page, and the driver "
            "refuses no focus-dependent input either, so nothing shows it took the hint up (a driver may ignore hints)"
        )
    expect_refused(outcome, "BR-BIND-004", f"the page {member} was approved against has been replaced")
    expect(not landed, "BR-BIND-004", f"{member} still reached the replacement page: {brief(landed)}")
