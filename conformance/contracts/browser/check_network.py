"""The browser's own network policy: nothing the page or the driver does may reach a non-permitted origin.

The SDK's url_policy approves everything in these checks (the subject approves all URLs), so any refusal must
come from the driver. The fixture server's second origin stands for a non-permitted site; its request log and
any effect posted from a page loaded there are the evidence. Pages learn that origin from ``?other=``, so these
checks start on the permitted origin and navigate there first. Clauses: BR-NET-001..008.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from conformance.assertions import expect, not_provoked
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject, CallOutcome

from ._effects import await_effect, other_origin_contacts, with_other
from ._expectations import expect_done, expect_refused
from ._tabs import active_tab, expect_valid_state

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

# How long a request, once started, gets to reach the fixture server. The pages record an effect when they start
# what they were built to try (the popup, the link, the download, the subresources; ~0.1 s after load) and driver
# calls have returned, so the attempt itself is known, not guessed; only its request can still be on the way.
# With a driver that lets it through, it reached the server within 25 ms of the attempt on loopback (measured with
# tests.broken.drivers:policy_only_in_navigate), so half a second leaves a wide margin for a loaded machine. (It
# replaces a 1.5 s window counted from the page's load, which had to cover the page's own start as well.)
IN_FLIGHT_SECONDS = 0.5


def _open_page(subject: BrowserSubject, env: Environment, page: str, clause: str, **query: str) -> CallOutcome:
    """Navigate the active tab to ``page`` (told about the other origin) and wait until it has loaded."""
    subject.require("navigate")
    url = with_other(env, page, **query)
    outcome = subject.call("navigate", url=url, tab_id=None)
    if outcome.sdk_error is None and outcome.raised is not None:
        # The page is on the permitted origin, but a driver may permit less (a list of exact URLs): then the page
        # never got to try what this check judges the driver on.
        not_provoked(
            f"the driver refused to open {page} on the permitted origin ({outcome.describe()}), so the page never "
            f"tried anything; a URL policy narrower than the task's permitted origin leaves this unchecked ({url})"
        )
    expect_done(outcome, clause)
    await_effect(
        subject, clause, "load", lambda e: e.get("page") == page and e.get("origin") == "main", what=f"{page} loading"
    )
    return outcome


# How long a loaded page gets to record that it started its attempt (it tries about 0.1 s after load).
ATTEMPT_SECONDS = 5.0


def _await_attempt(subject: BrowserSubject, clause: str, kind: str, page: str, what: str) -> None:
    """Wait until ``page`` records that it started ``what`` (its ``kind`` effect): positive proof it tried.

    A page that never tried gives the driver nothing to hold back: the clause is not provoked, not broken.
    """
    started = subject.env.poll_effect(
        kind, lambda e: e.get("page") == page and e.get("origin") == "main", ATTEMPT_SECONDS
    )
    if started is None:
        not_provoked(
            f"{page} loaded but never recorded {what} within {ATTEMPT_SECONDS:g} s, so there was nothing for the "
            "driver to stop; a driver that keeps the page's script from running (or from reporting to the kit's "
            "own origin) leaves this unchecked"
        )


def _expect_no_contact(subject: BrowserSubject, clause: str, what: str) -> None:
    """After the attempt is known to have started: give its request time to arrive, then judge the evidence."""
    subject.env.pause(IN_FLIGHT_SECONDS)
    subject.env.settle()  # and every page's own records are in (a page loaded on the other origin reports there)
    contacts = other_origin_contacts(subject.env)
    expect(not contacts, clause, f"{what} reached the non-permitted origin: {contacts[:5]}")


def _expect_no_tab_on_the_other_origin(subject: BrowserSubject, clause: str, after: str, what: str) -> None:
    """The state after ``after`` (standing on the state rules) lists no tab on the non-permitted origin."""
    state = expect_valid_state(subject, clause, after)
    shown = [tab for tab in state["tabs"] if str(tab.get("url", "")).startswith(subject.env.other_origin)]
    expect(not shown, clause, f"state shows {what} on the non-permitted origin: {shown!r}")


@pytest.mark.page("tabs-a.html")
@pytest.mark.clause("BR-NET-001", "BR-NET-002")
def test_navigate_to_a_non_permitted_origin_is_refused(subject: BrowserSubject, env: Environment) -> None:
    subject.require("navigate")
    outcome = subject.call("navigate", url=env.url("tabs-b.html", origin="other"), tab_id=None)
    _expect_no_contact(subject, "BR-NET-001", "navigate")
    expect_refused(outcome, "BR-NET-002", "the URL is outside the permitted origins")
    tab = active_tab(expect_valid_state(subject, "BR-NET-002", "a refused navigation"))
    expect(
        tab is not None and tab.get("title") == "Tabs A" and str(tab.get("url", "")).startswith(env.main_origin),
        "BR-NET-002",
        f"after the refused navigation the tab shows {tab!r}, not the page it was on",
    )
    outcome.expect_sdk_accepted()


@pytest.mark.page("tabs-a.html")
@pytest.mark.clause("BR-NET-008")
def test_new_tab_to_a_non_permitted_origin_is_refused(subject: BrowserSubject, env: Environment) -> None:
    subject.require("new_tab")
    outcome = subject.call("new_tab", url=env.url("tabs-b.html", origin="other"))
    _expect_no_contact(subject, "BR-NET-008", "new_tab")
    # Read as navigate's twin (BR-NET-002): the call itself must say it was refused. A success text would tell the
    # model a tab opened on that origin when none did.
    expect_refused(outcome, "BR-NET-008", "the URL is outside the permitted origins")
    _expect_no_tab_on_the_other_origin(subject, "BR-NET-008", "new_tab to a non-permitted origin", "a tab")
    outcome.expect_sdk_accepted()


@pytest.mark.page("tabs-a.html")
@pytest.mark.clause("BR-NET-003")
def test_a_navigation_redirected_away_is_stopped(subject: BrowserSubject, env: Environment) -> None:
    subject.require("navigate")
    # A navigation the SDK sees as permitted (its URL is on the permitted origin) that the server redirects away.
    # Only the refusal is judged: how the call ends, and whether the driver keeps serving calls after refusing,
    # are the driver's choice (one that retires its session after a policy breach is within the documents).
    target = quote(env.url("tabs-b.html?from=navigate-redirect", origin="other"), safe="")
    subject.call("navigate", url=env.url(f"__redirect?to={target}"), tab_id=None)
    _expect_no_contact(subject, "BR-NET-003", "a redirected navigate")


@pytest.mark.page("tabs-a.html")
@pytest.mark.clause("BR-NET-003")
def test_a_redirect_the_page_follows_is_stopped(subject: BrowserSubject, env: Environment) -> None:
    # The page starts this one itself, through a link to the redirect endpoint.
    _open_page(subject, env, "redirect.html", "BR-NET-003", auto="via-redirect")
    _await_attempt(subject, "BR-NET-003", "attempt", "redirect.html", "following its link to the redirect")
    _expect_no_contact(subject, "BR-NET-003", "a redirect the page followed")


@pytest.mark.page("tabs-a.html")
@pytest.mark.clause("BR-NET-004")
def test_page_links_to_a_non_permitted_origin_are_not_followed(subject: BrowserSubject, env: Environment) -> None:
    _open_page(subject, env, "redirect.html", "BR-NET-004", auto="direct")
    _await_attempt(subject, "BR-NET-004", "attempt", "redirect.html", "following its link to the other origin")
    _expect_no_contact(subject, "BR-NET-004", "a link the page followed")


@pytest.mark.page("tabs-a.html")
@pytest.mark.clause("BR-NET-005")
def test_popups_to_a_non_permitted_origin_never_reach_it(subject: BrowserSubject, env: Environment) -> None:
    _open_page(subject, env, "popup.html", "BR-NET-005", auto="partner")
    _await_attempt(subject, "BR-NET-005", "popup", "popup.html", "opening its popup")
    _expect_no_contact(subject, "BR-NET-005", "a popup")
    _expect_no_tab_on_the_other_origin(subject, "BR-NET-005", "a blocked popup", "a popup")


@pytest.mark.page("tabs-a.html")
@pytest.mark.clause("BR-NET-006")
def test_subresources_from_a_non_permitted_origin_are_blocked(subject: BrowserSubject, env: Environment) -> None:
    _open_page(subject, env, "subresource.html", "BR-NET-006")
    _await_attempt(subject, "BR-NET-006", "attempt", "subresource.html", "requesting its partner resources")
    _expect_no_contact(subject, "BR-NET-006", "an image, script, frame or fetch")


@pytest.mark.page("tabs-a.html")
@pytest.mark.clause("BR-NET-007")
def test_downloads_from_a_non_permitted_origin_are_blocked(subject: BrowserSubject, env: Environment) -> None:
    _open_page(subject, env, "download.html", "BR-NET-007", auto="partner-report")
    _await_attempt(subject, "BR-NET-007", "attempt", "download.html", "starting its download")
    _expect_no_contact(subject, "BR-NET-007", "a download")
