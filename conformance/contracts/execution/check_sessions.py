"""Sessions: calls with one session_id share a runtime (its variables, its browser page); another session_id sees
none of it."""

from __future__ import annotations

import secrets

import pytest

from conformance.assertions import expect, precondition
from conformance.harness.execution_service import new_session_id

from ._runtimes import Runtime

_VARIABLE = "driverkit_kept"


@pytest.mark.clause("EX-SESSION-001")
def test_a_session_keeps_its_variables_between_calls(runtime: Runtime) -> None:
    session, value = new_session_id("keep"), secrets.token_hex(8)
    first = runtime.run(session, runtime.set_code(_VARIABLE, value))
    precondition(first.status == 200, "EX-REQ-001", f"the call that sets a variable was not run: {first.describe()}")
    second = runtime.run(session, runtime.read_code(_VARIABLE))
    expect(
        value in second.text(),
        "EX-SESSION-001",
        f"a {runtime.language} variable set in one call is gone in the next call of the same session: "
        f"{second.describe()}",
    )


@pytest.mark.clause("EX-SESSION-002")
def test_another_session_sees_none_of_its_variables(runtime: Runtime) -> None:
    value = secrets.token_hex(8)
    first = runtime.run(new_session_id("mine"), runtime.set_code(_VARIABLE, value))
    precondition(first.status == 200, "EX-REQ-001", f"the call that sets a variable was not run: {first.describe()}")
    other = runtime.run(new_session_id("theirs"), runtime.read_code(_VARIABLE))
    expect(
        value not in other.text(),
        "EX-SESSION-002",
        f"a {runtime.language} variable set in one session is visible in another session",
    )


@pytest.mark.clause("EX-SESSION-003")
def test_the_browser_page_outlives_the_script(javascript: Runtime) -> None:
    session, title = new_session_id("page"), f"driverkit-{secrets.token_hex(6)}"
    javascript.run(session, f"await page.setContent('<title>{title}</title><p>kept</p>'); console.log('set')")
    later = javascript.run(session, "console.log(await page.title())")
    expect(
        title in later.text(),
        "EX-SESSION-003",
        f"the page a script left (titled {title!r}) is gone in the next script of the session: {later.describe()}",
    )
