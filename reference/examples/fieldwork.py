"""Fieldwork: fill and save the owned reservation form with ``ResponsesToolRunner`` and ``FieldworkDriver``.

    python -m reference.examples.fieldwork            # rehearsal: recorded model turns, real browser and page
    python -m reference.examples.fieldwork --live     # OPENAI_API_KEY and OPENAI_MODEL; asks before each action

Success is decided by the reservation the page itself recorded (the fixture server's effect store), compared
field by field with the task; the model's closing message is printed but proves nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Final

import openai
from openai.lib.browser import BrowserConfirmContext, BrowserToolset
from openai.lib.responses_tool_runner import RegisteredFunction, ResponsesToolRunner

from reference.browser import SyncBrowserProcess
from reference.fieldwork import FORM_PAGE, FieldworkDriver, context_options

from ._support import (
    ExampleResult,
    PageSession,
    answer_of,
    describe_call,
    fixture_pages,
    main_sync,
)

TASK = (
    "Use the reservation form to book a table for Grace Hopper on 2026-12-24 at 19:00 for 4 guests. "
    "She needs step-free access. Add the note 'Window seat, please.' Confirm the booking and tell me the result."
)

# What the example's reservation must end up as, checked against the page's record (the rehearsal
# cassette in tools/cassettes/example_sources.py books the same).
RESERVATION: Final = {
    "guest_name": "Grace Hopper",
    "date": "2026-12-24",
    "party_size": 4,
    "time_slot": "19:00",
    "notes": "Window seat, please.",
    "accessibility": True,
}
# Fill-in and confirm are the only actions this task needs; everything else stays off.
MEMBERS = ("read_page", "get_page_text", "type", "select_option", "set_checked", "click")


def saved_matches(pages: PageSession, expected: Mapping[str, object]) -> tuple[bool, str]:
    """Compare the page's own record of saved reservations with ``expected``."""
    pages.settle()
    saved = pages.effects("reservation_saved")
    if not saved:
        return False, "the form recorded no saved reservation"
    if len(saved) > 1:
        return False, f"the form recorded {len(saved)} saved reservations, expected exactly one"
    record = saved[0]
    wrong = {key: record.get(key) for key, value in expected.items() if record.get(key) != value}
    if wrong:
        return False, f"the saved reservation differs from the task: {wrong}"
    return True, "the form recorded exactly one reservation, matching the task: " + ", ".join(
        f"{key}={record[key]!r}" for key in expected
    )


def approving(approve: Callable[[str], bool], log: list[str]) -> Callable[[BrowserConfirmContext], bool]:
    """The toolset's ``confirm``: ask about each action with its fixed arguments; only True approves."""

    def confirm(context: BrowserConfirmContext) -> bool:
        description = describe_call(context["member"], context["arguments"])
        decision = approve(description) is True
        log.append(("approved " if decision else "refused ") + description)
        return decision

    return confirm


def book(
    client: openai.OpenAI,
    model: str,
    task: str,
    expected: Mapping[str, object],
    approve: Callable[[str], bool],
    *,
    functions: Sequence[RegisteredFunction] = (),
    max_steps: int,
) -> ExampleResult:
    """Run ``task`` on the reservation form through a Fieldwork toolset (beside ``functions``, if any) and judge it
    by the reservation the page itself recorded, compared with ``expected``."""
    approvals: list[str] = []
    with fixture_pages() as pages:
        process = SyncBrowserProcess.start()
        try:
            context = process.browser.new_context(**context_options())
            try:
                driver = FieldworkDriver.open(context.new_page(), pages.url(FORM_PAGE))
                toolset = BrowserToolset(driver, members=list(MEMBERS), confirm=approving(approve, approvals))
                runner = ResponsesToolRunner(browser=toolset, functions=list(functions))
                answer = answer_of(runner, client, model, task, max_steps)
                verified, evidence = saved_matches(pages, expected)
            finally:
                context.close()
        finally:
            process.close()
    return ExampleResult(verified, evidence, answer, approvals)


def run(client: openai.OpenAI, model: str, approve: Callable[[str], bool], *, max_steps: int = 10) -> ExampleResult:
    return book(client, model, TASK, RESERVATION, approve, max_steps=max_steps)


def main(argv: Sequence[str] | None = None) -> int:
    return main_sync(__doc__, argv, "fieldwork", run)


if __name__ == "__main__":
    sys.exit(main())
