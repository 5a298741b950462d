"""Page dialogs: dismissed so they never block the driver, never accepted for the page, never quoted in state.

dialogs.html asks alert, confirm and prompt in turn shortly after loading and records what each returned.
Every message carries a marker string that must never appear in anything state() reports.
With observation metadata, every dismissed dialog is noticed with its kind. Clauses: BR-DLG-001..004.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from conformance.assertions import as_precondition, expect, not_implemented, not_provoked
from conformance.harness.environment import Effect, Environment
from conformance.harness.subject import BrowserSubject

from ._effects import await_effect, mark
from ._expectations import expect_done
from ._refs import ref_of, structured_elements
from ._tabs import expect_valid_state

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

DIALOG_MARKER = "KIT-DIALOG-TEXT-4417"


def _answers_while_the_driver_works(subject: BrowserSubject, timeout: float = 10.0) -> dict[Any, Effect]:
    """The page's record of each dialog's return value, keyed by dialog kind.

    A sync driver handles browser events only while one of its methods runs, so the check keeps asking for
    state: a driver that dismisses dialogs lets the page go on; one that cannot leaves it blocked (or hangs).
    """
    deadline = time.monotonic() + timeout
    while True:
        expect_valid_state(subject, "BR-DLG-001", "the page opened a dialog")
        answers = {effect.get("dialog"): effect for effect in subject.env.effects("dialog")}
        if len(answers) >= 3 or time.monotonic() >= deadline:
            return answers
        subject.env.pause(0.2)


@pytest.mark.page("dialogs.html")
@pytest.mark.clause("BR-DLG-001", "BR-DLG-002", "BR-DLG-003", "BR-DLG-004")
def test_page_dialogs_are_dismissed_and_never_quoted(subject: BrowserSubject, env: Environment) -> None:
    answers = _answers_while_the_driver_works(subject)
    expect(
        {"alert", "confirm", "prompt"} <= set(answers),
        "BR-DLG-001",
        f"the page stayed blocked: only {sorted(answers)} of alert, confirm and prompt returned within 10 s",
    )
    confirm = answers["confirm"]
    expect(
        confirm.get("result") is False,
        "BR-DLG-002",
        f"the page's confirm() returned {confirm.get('result')!r}: it was accepted on the page's behalf",
    )
    prompt = answers["prompt"]
    expect(
        prompt.get("result") is None,
        "BR-DLG-003",
        f"the page's prompt() returned {prompt.get('result')!r} instead of null (dismissed)",
    )

    state = expect_valid_state(subject, "BR-DLG-001", "the page's dialogs")
    text = json.dumps(state, ensure_ascii=False)
    expect(DIALOG_MARKER not in text, "BR-DLG-004", "state() repeats the text of a page dialog")
    changes = (state.get("observation") or {}).get("changes") or []
    kinds = [change.get("kind") for change in changes if change.get("type") == "dialog_dismissed"]
    expect(
        set(kinds) <= {"alert", "confirm", "prompt"},
        "BR-DLG-004",
        f"dialog notices name kinds the page never asked: {kinds}",
    )

    # A dialog raised by the driver's own action must not hang that action either.
    if subject.implements("click"):
        ref = ref_of(structured_elements(subject, "Ask again") or [], "Ask again")
        if ref is not None:
            before = len(env.effects("dialog"))
            position = mark(subject)
            expect_done(subject.call("click", target=ref, tab_id=None), "BR-DLG-001")
            # The dialog comes from the click: a click that never reached the page raised none to judge.
            with as_precondition():
                await_effect(
                    subject, "BR-ACT-002", "click", what="the click on Ask again", of_call=True, after=position
                )
            again = await_effect(
                subject,
                "BR-DLG-001",
                "dialog",
                lambda e: e in env.effects("dialog")[before:],
                timeout=10.0,
                what="the second confirm() returning",
            )
            expect(again.get("result") is False, "BR-DLG-002", f"the second confirm() returned {again.get('result')!r}")
            expect_valid_state(subject, "BR-DLG-001", "a click that opened a dialog")


@pytest.mark.page("dialogs.html")
@pytest.mark.hints(observation=True)
@pytest.mark.clause("BR-DLG-004")
def test_each_dismissed_dialog_is_noticed_with_its_kind(subject: BrowserSubject, env: Environment) -> None:
    # The Node declarations' BrowserStateChange lists dialog_dismissed with the dialog's kind: a driver that reports
    # observation metadata says so for every dialog it dismissed, not only never with the wrong kind.
    answers = _answers_while_the_driver_works(subject)
    if not {"alert", "confirm", "prompt"} <= set(answers):
        not_provoked(f"only {sorted(answers)} of alert, confirm and prompt returned, so not every dialog was dismissed")
    state = expect_valid_state(subject, "BR-DLG-004", "the page's dialogs")
    if not isinstance(state, dict) or not isinstance(state.get("observation"), dict):
        not_implemented("observation metadata V1 in state (env.hints.observation=True)")
    observation = state["observation"]
    notices = [change for change in observation.get("changes") or [] if change.get("type") == "dialog_dismissed"]
    kinds = sorted(str(change.get("kind")) for change in notices)
    # The page's own record says which dialogs it raised and got back (one per kind, once per load of the page).
    asked = sorted(str(effect.get("dialog")) for effect in env.effects("dialog"))
    if kinds != asked and observation.get("dropped_changes"):
        not_provoked(
            f"the change history already dropped {observation.get('dropped_changes')} changes, so the dialog notices "
            f"may be among them (found {kinds} for dialogs {asked})"
        )
    expect(
        kinds == asked,
        "BR-DLG-004",
        f"the page's dialogs {asked} were dismissed, but the history notices dialog kinds {kinds}",
    )
