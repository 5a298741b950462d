"""Safe failures: BrowserError text carries no page content and no library internals, and the driver
recovers afterwards (BR-ERR)."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject, CallOutcome

from ._expectations import is_browser_error
from ._reads import RAW_ERROR_MARKERS, read_text
from ._refs import act_on, first_action

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

# Text that exists only on forms.html: page text, labels and field values.
PAGE_CONTENT: tuple[str, ...] = (
    "Tell us how parcels should reach you",
    "Delivery preferences",
    "Recipient name",
    "Ada Lovelace",
    "Save preferences",
    "GHOST-COUPON-9",
)


def provoke_failures(subject: BrowserSubject) -> list[CallOutcome]:
    """Recoverable failures any driver with an element action can be led into on forms.html."""
    action = first_action(subject)
    failures = [
        act_on(subject, action, "kit-never-issued-ref"),
        act_on(subject, action, "#save"),
        act_on(subject, action, "kit-never-issued-ref", tab_id="kit-never-issued-tab"),
    ]
    reads: tuple[tuple[str, dict[str, Any]], ...] = (
        ("read_page", {"filter": "all", "tab_id": "kit-never-issued-tab"}),
        ("get_page_text", {"tab_id": "kit-never-issued-tab"}),
    )
    for member, arguments in reads:
        if subject.implements(member):
            failures.append(subject.call(member, **arguments))
    return failures


@pytest.mark.page("forms.html")
@pytest.mark.clause("BR-ERR-001", "BR-ERR-002", "BR-ERR-003")
def test_browser_errors_are_safe_and_recoverable(subject: BrowserSubject, env: Environment) -> None:
    failures = provoke_failures(subject)
    messages = [str(outcome.raised) for outcome in failures if is_browser_error(outcome.raised)]
    page_path = env.start_url.split("://", 1)[1].split("/", 1)[1]
    for message in messages:
        content = [part for part in PAGE_CONTENT if part in message]
        expect(not content, "BR-ERR-001", f"a BrowserError message repeats page content {content}: {message!r}")
        expect(
            page_path not in message and env.main_origin not in message,
            "BR-ERR-001",
            f"a BrowserError message repeats the page URL: {message!r}",
        )
        internals = [marker for marker in RAW_ERROR_MARKERS if marker in message.casefold()]
        expect(
            not internals and len(message) <= 500,
            "BR-ERR-002",
            f"a BrowserError message passes on library internals {internals}: {message[:300]!r}",
        )
    for outcome in failures:
        outcome.expect_sdk_accepted()
    reader = next((m for m in ("get_page_text", "read_page") if subject.implements(m)), None)
    if reader is not None:
        arguments = {"tab_id": None} if reader == "get_page_text" else {"filter": "all", "tab_id": None}
        again = subject.call(reader, **arguments)
        expect(
            again.raised is None and "Delivery preferences" in read_text(again.raw),
            "BR-ERR-003",
            f"after recoverable failures {reader} no longer reads the page: {again.raised!r}",
        )
    state = subject.state()
    expect(
        isinstance(state, dict) and len(state.get("tabs", [])) >= 1,
        "BR-ERR-003",
        "after recoverable failures state() reports no tabs",
    )
