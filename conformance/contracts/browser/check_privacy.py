"""Field privacy: no read and no error message discloses a password or one-time-code value (BR-PRIV).

private.html fills its password and one-time-code fields from a script, so their values exist only in the live
fields; a report can contain them only if the driver read those fields' values.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject, CallOutcome

from ._expectations import is_browser_error
from ._reads import PRIVATE_VALUES, contains_any
from ._refs import act_on, first_action

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")


def disclosed(outcome: CallOutcome) -> list[str]:
    """Private values found in what the driver returned, what the SDK passed on, or the driver's error."""
    seen: list[Any] = [outcome.raw, outcome.payload]
    if outcome.raised is not None:
        seen.append(str(outcome.raised))
    return contains_any(seen, PRIVATE_VALUES)


@pytest.mark.page("private.html")
@pytest.mark.clause("BR-PRIV-001")
def test_read_page_keeps_private_fields_private(subject: BrowserSubject, env: Environment) -> None:
    for filter in ("all", "interactive"):
        outcome = subject.call("read_page", filter=filter, tab_id=None)
        leaked = disclosed(outcome)
        expect(not leaked, "BR-PRIV-001", f"read_page(filter={filter!r}) disclosed private values {leaked}")


@pytest.mark.page("private.html")
@pytest.mark.clause("BR-PRIV-002")
def test_find_keeps_private_fields_private(subject: BrowserSubject, env: Environment) -> None:
    for query in ("Password", "One-time code", "password field value", "Sign in"):
        outcome = subject.call("find", query=query, tab_id=None)
        leaked = disclosed(outcome)
        expect(not leaked, "BR-PRIV-002", f"find({query!r}) disclosed private values {leaked}")


@pytest.mark.page("private.html")
@pytest.mark.clause("BR-PRIV-003")
def test_page_text_keeps_private_fields_private(subject: BrowserSubject, env: Environment) -> None:
    outcome = subject.call("get_page_text", tab_id=None)
    leaked = disclosed(outcome)
    expect(not leaked, "BR-PRIV-003", f"get_page_text disclosed private values {leaked}")


@pytest.mark.page("private.html")
@pytest.mark.clause("BR-PRIV-005")
def test_error_messages_keep_private_fields_private(subject: BrowserSubject, env: Environment) -> None:
    action = first_action(subject)
    failures = [
        act_on(subject, action, "kit-never-issued-ref"),
        act_on(subject, action, "kit-never-issued-ref", tab_id="kit-never-issued-tab"),
    ]
    if subject.implements("read_page"):
        failures.append(subject.call("read_page", filter="all", tab_id="kit-never-issued-tab"))
    messages = [str(outcome.raised) for outcome in failures if is_browser_error(outcome.raised)]
    leaked = contains_any(messages, PRIVATE_VALUES)
    expect(not leaked, "BR-PRIV-005", f"BrowserError messages disclose private values {leaked}: {messages}")


@pytest.mark.page("profile.html")
@pytest.mark.clause("BR-PRIV-006")
def test_the_session_starts_from_a_fresh_profile(subject: BrowserSubject, env: Environment) -> None:
    # profile.html reports what it finds on arrival, before it stores anything itself: cookies or stored data
    # from anyone else's browsing (or from an earlier check's session, which leaves both) mean a reused profile.
    found = env.wait_for_effect("profile", timeout=10)
    cookies, stored = found.get("cookies") or [], found.get("stored") or []
    expect(
        not cookies and not stored,
        "BR-PRIV-006",
        f"the session's first page found cookies {cookies} and stored data {stored} it never made",
    )
    # The page then fetches a resource behind HTTP authentication; the server's log says whether it was answered.
    env.poll_effect("auth_probe", None, 5.0)
    answered = [
        request.path
        for request in env.requests()
        if request.path in ("profile.html", "__auth") and request.authorization
    ]
    expect(not answered, "BR-PRIV-006", f"the fresh session sent HTTP credentials for {sorted(set(answered))}")
