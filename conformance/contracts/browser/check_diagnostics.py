"""Diagnostics (opt-in read_diagnostics): bounded, filtered console and network summaries (BR-DIAG).

diagnostics.html writes twenty numbered console messages and two that carry secrets, receives a cookie, sends
a bearer token and a token query parameter, and fetches twelve numbered API paths. The checks wait for the page
to record that it finished before reading diagnostics.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from conformance.assertions import expect, violation
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject, CallOutcome
from conformance.members import OMISSION_CODES

from ._endpoints import SECRET_COOKIE
from ._reads import contains_any, read_text, valid_unicode

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

CONSOLE_SECRETS: tuple[str, ...] = ("hunter2-secret-553", "sk-kit-SECRET-8812")
COOKIE_SECRETS: tuple[str, ...] = SECRET_COOKIE
HEADER_SECRETS: tuple[str, ...] = ("SECRET-BEARER-9917",)
URL_SECRETS: tuple[str, ...] = ("SECRET-TOKEN-6402",)


def diagnostics(subject: BrowserSubject, source: str, limit: int) -> CallOutcome:
    return subject.call("read_diagnostics", tab_id=None, source=source, limit=limit)


def diagnostic_report(outcome: CallOutcome) -> dict[str, Any]:
    """BR-DIAG-001: a structured read with no elements."""
    if outcome.raised is not None:
        violation("BR-DIAG-001", f"failed on a working page: {outcome.describe()}")
    raw = outcome.raw
    expect(isinstance(raw, dict), "BR-DIAG-001", f"read_diagnostics returned {type(raw).__name__}, not a read")
    expect(raw.get("version") == 1 and type(raw.get("version")) is int, "BR-DIAG-001", "version must be 1")
    expect(
        isinstance(raw.get("text"), str) and valid_unicode(raw["text"]),
        "BR-DIAG-001",
        "text must be valid Unicode text",
    )
    expect(raw.get("elements") == [], "BR-DIAG-001", f"elements must be empty, got {raw.get('elements')!r}"[:200])
    omitted = raw.get("omitted")
    expect(
        isinstance(omitted, list) and all(code in OMISSION_CODES for code in omitted),
        "BR-DIAG-001",
        f"omitted must list documented codes, got {omitted!r}",
    )
    outcome.expect_sdk_accepted()
    return dict(raw)


def markers(text: str, pattern: str) -> set[str]:
    return set(re.findall(pattern, text))


# How the kit counts entries in a text summary, whatever its layout: a line naming a console level, or a line
# naming an HTTP method. Drivers may withhold message text entirely, so the fixture's own markers cannot be
# relied on to be present.
CONSOLE_ENTRY = re.compile(r"kit-console-\d\d|\b(?:log|warn|warning|error|info|debug)\b", re.IGNORECASE)
NETWORK_ENTRY = re.compile(r"items-\d+|\b(?:GET|POST|HEAD|PUT|PATCH|DELETE|OPTIONS)\b")


def entries(text: str, pattern: re.Pattern[str]) -> list[str]:
    return [line for line in text.splitlines() if pattern.search(line)]


# What each source's report names once per entry: the fixture's own marker, and the kit's count of entry lines.
ENTRY_MARKERS = {"console": r"kit-console-\d\d", "network": r"items-\d+"}
ENTRY_LINES = {"console": CONSOLE_ENTRY, "network": NETWORK_ENTRY}


def _expect_at_most(subject: BrowserSubject, source: str, limit: int, noun: str) -> None:
    """BR-DIAG-002: a read of ``source`` with ``limit`` reports no more entries, by marker or by line."""
    text = read_text(diagnostic_report(diagnostics(subject, source, limit)))
    shown = markers(text, ENTRY_MARKERS[source])
    counted = entries(text, ENTRY_LINES[source])
    expect(
        len(shown) <= limit and len(counted) <= limit,
        "BR-DIAG-002",
        f"a {source} read with limit {limit} reports {max(len(shown), len(counted))} {noun}: {counted[:6]}",
    )


@pytest.mark.page("diagnostics.html")
@pytest.mark.hints(members=("read_diagnostics",))
@pytest.mark.clause("BR-DIAG-001", "BR-DIAG-002", "BR-DIAG-006", "BR-DIAG-007")
def test_console_diagnostics_are_bounded_and_filtered(subject: BrowserSubject, env: Environment) -> None:
    subject.require("read_diagnostics")
    env.wait_for_effect("diagnostics_ready", timeout=10)
    full = diagnostic_report(diagnostics(subject, "console", 100))
    leaked = contains_any([full, diagnostics(subject, "console", 100).payload], CONSOLE_SECRETS)
    expect(not leaked, "BR-DIAG-006", f"console diagnostics repeat secrets from console messages: {leaked}")
    expect(
        entries(read_text(full), CONSOLE_ENTRY),
        "BR-DIAG-007",
        f"console diagnostics report none of the 22 console messages the page wrote: {read_text(full)[:200]!r}",
    )
    _expect_at_most(subject, "console", 3, "messages")


@pytest.mark.page("diagnostics.html")
@pytest.mark.hints(members=("read_diagnostics",))
@pytest.mark.clause("BR-DIAG-001", "BR-DIAG-002", "BR-DIAG-003", "BR-DIAG-004", "BR-DIAG-005", "BR-DIAG-008")
def test_network_diagnostics_are_bounded_and_filtered(subject: BrowserSubject, env: Environment) -> None:
    subject.require("read_diagnostics")
    env.wait_for_effect("diagnostics_ready", timeout=10)
    outcome = diagnostics(subject, "network", 100)
    full = diagnostic_report(outcome)
    seen = [full, outcome.payload]
    cookies = contains_any(seen, COOKIE_SECRETS)
    expect(not cookies, "BR-DIAG-003", f"network diagnostics show the page's cookie: {cookies}")
    headers = contains_any(seen, (*HEADER_SECRETS, "Bearer ", "Authorization:", "Set-Cookie"))
    expect(not headers, "BR-DIAG-004", f"network diagnostics show raw request headers: {headers}")
    credentials = contains_any(seen, URL_SECRETS)
    expect(not credentials, "BR-DIAG-005", f"network diagnostics show the token from a request URL: {credentials}")
    expect(
        "__api" in read_text(full) or markers(read_text(full), ENTRY_MARKERS["network"]),
        "BR-DIAG-008",
        f"network diagnostics mention none of the page's API requests: {read_text(full)[:200]!r}",
    )
    _expect_at_most(subject, "network", 2, "requests")
