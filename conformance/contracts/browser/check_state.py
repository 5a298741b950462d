"""Tab state: the report's shape, its active tab, and the URLs and titles it shows (BR-STATE, BR-URL)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from conformance.assertions import expect, violation
from conformance.harness.environment import Environment
from conformance.harness.state_rules import broken_rule
from conformance.harness.subject import SDK_ACCEPTS_CLAUSE, BrowserSubject

from ._reads import contains_any
from ._tabs import active_tab, tab_ids, the_active_tab

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

# Userinfo the credentials check puts into the page URL; neither part may come back in any report.
CREDENTIAL_USER = "kituser"
CREDENTIAL_SECRET = "kitsecret-5150"


def origin_of(url: str) -> str:
    """scheme://host:port of ``url`` without userinfo, the way the documents display an HTTP(S) tab."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}"


def check_state_rules(state: Any, where: str) -> None:
    """Fail the state rule ``state`` breaks first (BR-STATE-001..003) on its own clause."""
    rule = broken_rule(state)
    if rule is not None:
        violation(rule.clause, f"{where}: {rule.detail}")


def new_tab_id(before: Any, after: Any) -> str | None:
    added = [tab_id for tab_id in tab_ids(after) if tab_id not in tab_ids(before)]
    return added[0] if len(added) == 1 else None


@pytest.mark.page("forms.html")
@pytest.mark.clause("BR-STATE-005", "BR-STATE-001", "BR-STATE-002", "BR-STATE-003", "BR-STATE-004", "BR-URL-002")
def test_state_reports_the_page_shown(subject: BrowserSubject, env: Environment) -> None:
    # BR-STATE-005 is judged by the shows_start_page precondition every browser check module requests; this
    # check declares it so that a run passing it says so.
    state = subject.state()
    check_state_rules(state, "initial state")
    tab = active_tab(state)
    expect(tab is not None, "BR-STATE-003", "the driver shows a page but reports no active tab")
    assert tab is not None
    expect(
        tab["title"] == "Delivery preferences",
        "BR-STATE-004",
        f"the active tab shows forms.html (title 'Delivery preferences') but reports title {tab['title']!r}",
    )
    expect(
        origin_of(tab["url"]) == env.main_origin,
        "BR-URL-002",
        f"the active tab shows a page of {env.main_origin} but reports URL origin {origin_of(tab['url'])!r}",
    )
    # The model sees the SDK's projection of the same report: it must be accepted and show that origin.
    outcome = subject.call("list_tabs")
    outcome.expect_sdk_accepted()
    assert outcome.payload is not None
    shown = active_tab(outcome.payload.get("state"))
    expect(
        shown is not None and shown["url"] == env.main_origin,
        "BR-URL-002",
        f"the state sent to the model shows {shown and shown['url']!r}, not {env.main_origin!r}",
    )


@pytest.mark.page("forms.html")
@pytest.mark.clause("BR-STATE-001", "BR-STATE-002", "BR-STATE-003")
def test_state_rules_hold_with_several_tabs(subject: BrowserSubject, env: Environment) -> None:
    subject.require("new_tab")
    before = subject.state()
    for page in ("text.html", "blank.html"):
        outcome = subject.call("new_tab", url=env.url(page))
        expect(outcome.raised is None, "BR-STATE-001", f"new_tab({page}) failed: {outcome.raised!r}")
        # The state rules first: the SDK also rejects a broken state, but the certificate should name the rule.
        for reported in outcome.states:
            check_state_rules(reported, f"state read around new_tab({page})")
        outcome.expect_sdk_accepted()
    after = subject.state()
    check_state_rules(after, "state with three tabs")
    expect(
        len(tab_ids(after)) == len(tab_ids(before)) + 2,
        "BR-STATE-001",
        f"two tabs were opened but state lists {len(tab_ids(after))} tabs (was {len(tab_ids(before))})",
    )


@pytest.mark.page("blank.html")
@pytest.mark.clause("BR-URL-001")
def test_credentials_in_a_url_are_never_reported(subject: BrowserSubject, env: Environment) -> None:
    subject.require("navigate")
    address = env.url("creds.html", credentials=f"{CREDENTIAL_USER}:{CREDENTIAL_SECRET}")
    outcome = subject.call("navigate", url=address, tab_id=None)
    # A driver may refuse URLs with userinfo outright; either way no report may repeat them.
    reports = [subject.state(), outcome.raw, *outcome.states]
    if outcome.payload is not None:
        reports.append(outcome.payload)
    leaked = contains_any(reports, (CREDENTIAL_SECRET, f"{CREDENTIAL_USER}:"))
    expect(not leaked, "BR-URL-001", f"state or result repeats the URL credentials: {leaked}")
    for tab in subject.state().get("tabs", []):
        parts = urlsplit(str(tab.get("url", "")))
        expect(
            parts.username is None and parts.password is None,
            "BR-URL-001",
            f"tab URL still carries userinfo: {parts.scheme}://{parts.netloc.rsplit('@', 1)[0]}@...",
        )


# A query long enough that the full URL is far beyond the 2,048-byte limit on the reported value.
LONG_PAGE = "forms.html?padding=" + "p" * 2600


@pytest.mark.page(LONG_PAGE)
@pytest.mark.parametrize(
    "mode",
    [
        pytest.param("observation", id="observation"),
        pytest.param("legacy", id="legacy", marks=pytest.mark.hints(observation=False)),
    ],
)
@pytest.mark.clause("BR-URL-004", "BR-URL-002")
# The SDK rejecting states of ordinary pages too (BR-SDK-001 failed elsewhere) says nothing about a long URL.
@pytest.mark.requires("BR-SDK-001")
def test_a_long_page_address_still_gets_a_state_report(subject: BrowserSubject, env: Environment, mode: str) -> None:
    try:
        state = subject.state()
    except Exception as error:
        violation("BR-URL-004", f"state() failed on a page with a long URL: {type(error).__name__}")
    # The state rules first: a report the SDK rejects for breaking one says nothing about the URL.
    tab = the_active_tab(state, "state of a page with a long URL")
    outcome = subject.call("list_tabs")
    if outcome.sdk_error is not None and (rejected := outcome.blocked()).clause_id != SDK_ACCEPTS_CLAUSE:
        raise rejected  # rejected for a rule of the report (its observation metadata, say), not for the URL
    expect(
        outcome.sdk_error is None,
        "BR-URL-004",
        f"the SDK rejected the {mode} state of a page with a {len(env.start_url)}-byte URL: {outcome.sdk_error!r}",
    )
    expect(
        origin_of(tab["url"]) == env.main_origin,
        "BR-URL-002",
        f"the long-URL page is reported with origin {origin_of(tab['url'])!r}",
    )


@pytest.mark.page("forms.html")
@pytest.mark.clause("BR-STATE-006")
def test_the_driver_leaves_list_tabs_to_the_toolset(subject: BrowserSubject, env: Environment) -> None:
    # The toolset answers list_tabs from state(); a driver method of that name would be a second, competing
    # source of tab information that the SDK never calls.
    own = getattr(subject.driver, "list_tabs", None)
    expect(
        not callable(own),
        "BR-STATE-006",
        f"the driver has a list_tabs method of its own ({type(own).__name__}); list_tabs comes from state()",
    )
