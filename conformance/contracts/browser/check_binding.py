"""Target-bound consent: when consent is tied to a control, focus-dependent input is refused.

The check asks the factory for ``bind_targets=True``. A driver that shows no sign of that mode (both ``key``
and ``type`` with a null target still work, or it never had ``key`` and ``type`` works) is reported as not
implementing it rather than failing, since hints may be ignored; dropping ``key`` for the session is a sign.
Clauses: BR-BIND-001..003.
"""

from __future__ import annotations

import pytest

from conformance.assertions import expect, not_implemented
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject

from ._effects import await_effect, await_new_effect, brief, input_effects_since, mark, since
from ._expectations import expect_refused
from ._refs import require_ref

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")


@pytest.mark.page("actions.html")
@pytest.mark.hints(bind_targets=True)
@pytest.mark.clause("BR-BIND-001", "BR-BIND-002")
def test_bound_consent_refuses_focus_dependent_input(subject: BrowserSubject, env: Environment) -> None:
    subject.require("type")
    await_effect(subject, "BR-BIND-001", "focused", lambda e: e.get("target") == "notes", what="Notes taking focus")

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
    await_new_effect(subject, "BR-BIND-003", position, "load", what="the page loading again")
    position = mark(subject)
    stale = subject.call("click", target=ref, tab_id=None)
    subject.env.settle()
    clicks = since(env, position, "click")
    expect_refused(stale, "BR-BIND-003", "the ref belongs to a document that has been replaced")
    expect(not clicks, "BR-BIND-003", f"a ref from the old document clicked the new one: {brief(clicks)}")
