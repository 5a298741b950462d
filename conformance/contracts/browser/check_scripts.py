"""Scripts (opt-in run_script): text results, running in the page once, timeouts and thrown errors (BR-SCRIPT).

How a driver turns ``source`` into a result is its own choice, so the checks only rely on what any reading of
the source does: the calls to the page's ``bump()`` run, a never-settling promise never settles, and a thrown
error is thrown.
"""

from __future__ import annotations

import time

import pytest

from conformance.assertions import expect, precondition, violation
from conformance.harness.environment import Environment
from conformance.harness.subject import BrowserSubject

from ._effects import effect_with
from ._expectations import is_browser_error
from ._reads import valid_unicode
from ._tabs import tabs_of

# Every check here starts on its fixture page; without it the start-page clause is blamed, in setup.
pytestmark = pytest.mark.usefixtures("shows_start_page")

# How long past timeout_ms a driver may take to give up: generous, since a loaded machine is slow, but far
# below forever.
GRACE_SECONDS = 8.0
THROWN_MARKER = "kit-thrown-secret-3391"


@pytest.mark.page("script.html")
@pytest.mark.hints(members=("run_script",))
@pytest.mark.clause("BR-SCRIPT-001", "BR-SCRIPT-002")
def test_a_script_runs_once_in_the_page_and_returns_text(subject: BrowserSubject, env: Environment) -> None:
    outcome = subject.call("run_script", tab_id=None, source="window.bump('kit-script-1')", timeout_ms=5000)
    if outcome.raised is not None:
        violation("BR-SCRIPT-002", f"a one-line script failed: {outcome.describe()}")
    expect(
        isinstance(outcome.raw, str) and valid_unicode(outcome.raw),
        "BR-SCRIPT-001",
        f"run_script returned {type(outcome.raw).__name__}, not text",
    )
    outcome.expect_sdk_accepted()
    env.wait_for_effect("script_bump", effect_with(marker="kit-script-1"))
    env.settle()
    runs = env.effects("script_bump")
    expect(len(runs) == 1, "BR-SCRIPT-002", f"the script ran {len(runs)} times in the page")
    unicode_outcome = subject.call("run_script", tab_id=None, source="'🍰 ' + document.title", timeout_ms=5000)
    expect(
        unicode_outcome.raised is None and isinstance(unicode_outcome.raw, str) and valid_unicode(unicode_outcome.raw),
        "BR-SCRIPT-001",
        f"a script with emoji gave {type(unicode_outcome.raw).__name__} / {unicode_outcome.raised!r}",
    )
    unicode_outcome.expect_sdk_accepted()


@pytest.mark.page("script.html")
@pytest.mark.hints(members=("run_script",))
@pytest.mark.clause("BR-SCRIPT-001", "BR-SCRIPT-003")
def test_a_script_that_never_settles_is_given_up_on_time(subject: BrowserSubject, env: Environment) -> None:
    started = time.monotonic()
    outcome = subject.call("run_script", tab_id=None, source="new Promise(() => {})", timeout_ms=1000)
    elapsed = time.monotonic() - started
    expect(
        elapsed <= 1.0 + GRACE_SECONDS,
        "BR-SCRIPT-003",
        f"run_script with timeout_ms=1000 took {elapsed:.1f} s to return",
    )
    if outcome.raised is None:
        expect(
            isinstance(outcome.raw, str),
            "BR-SCRIPT-001",
            f"run_script returned {type(outcome.raw).__name__} instead of text or an error",
        )


@pytest.mark.page("script.html")
@pytest.mark.hints(members=("run_script",))
@pytest.mark.clause("BR-SCRIPT-004")
def test_a_throwing_script_fails_without_echoing_the_error(subject: BrowserSubject, env: Environment) -> None:
    source = f"(() => {{ throw new Error('{THROWN_MARKER}'); }})()"
    outcome = subject.call("run_script", tab_id=None, source=source, timeout_ms=5000)
    expect(
        outcome.raised is not None,
        "BR-SCRIPT-004",
        f"a script that throws was reported as completed with {outcome.raw!r}"[:200],
    )
    if is_browser_error(outcome.raised):
        expect(
            THROWN_MARKER not in str(outcome.raised),
            "BR-SCRIPT-004",
            "the BrowserError message repeats the page's exception text",
        )
    outcome.expect_sdk_accepted()


@pytest.mark.page("script.html")
@pytest.mark.hints(members=("run_script",))
@pytest.mark.clause("BR-SCRIPT-005")
def test_a_script_in_a_page_nobody_allowed_is_refused(subject: BrowserSubject, env: Environment) -> None:
    # A blank tab shows no page on any permitted origin, so nobody allowed scripts there. The script would tell
    # the fixture server it ran, which a refused script never does.
    subject.require("new_tab")
    before = {str(tab.get("id")) for tab in tabs_of(subject.state())}
    opened = subject.call("new_tab", url=None)
    precondition(opened.raised is None, "BR-TAB-002", f"opening a blank tab: {opened.describe()}")
    added = [str(tab.get("id")) for tab in tabs_of(subject.state()) if str(tab.get("id")) not in before]
    precondition(len(added) == 1, "BR-TAB-002", f"new_tab(None) added {len(added)} tabs")
    marker = "kit-script-blank-7710"
    beacon = env.url(f"blank.html?{marker}=1")
    source = f"fetch({beacon!r}, {{mode: 'no-cors'}}).then(() => 'sent')"
    outcome = subject.call("run_script", tab_id=added[0], source=source, timeout_ms=5000)
    expect(
        outcome.raised is not None,
        "BR-SCRIPT-005",
        f"run_script in a blank tab (no permitted page) completed with {outcome.raw!r}"[:200],
    )
    env.settle()
    reached = [request for request in env.requests() if marker in request.query]
    expect(not reached, "BR-SCRIPT-005", "the refused script still ran: its request reached the fixture server")
    outcome.expect_sdk_accepted()
