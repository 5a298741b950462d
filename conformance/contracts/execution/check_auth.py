"""Callers must authenticate: a request with no bearer token, or a wrong one, is refused and runs nothing."""

from __future__ import annotations

import secrets

import pytest

from conformance.assertions import expect
from conformance.harness.execution_service import ExecutionEndpoint, new_session_id

from ._runtimes import Runtime

_VARIABLE = "driverkit_unauthenticated_run"


@pytest.mark.clause("EX-AUTH-001")
@pytest.mark.parametrize("credential", ["none", "wrong"])
def test_a_caller_without_the_token_is_refused_and_nothing_runs(
    service: ExecutionEndpoint, runtime: Runtime, credential: str
) -> None:
    session = new_session_id("auth")
    token = None if credential == "none" else f"driverkit-wrong-{secrets.token_urlsafe(18)}"
    described = "no bearer token" if token is None else "a wrong bearer token"
    refused = service.execute(session, runtime.set_code(_VARIABLE, "ran"), runtime.language, token=token)
    expect(
        refused.status >= 400 and refused.output is None,
        "EX-AUTH-001",
        f"a request with {described} was answered {refused.describe()}",
    )
    # What the refused script would have left in its session, read by an authenticated caller.
    after = runtime.run(session, runtime.read_code(_VARIABLE))
    expect(
        "ran" not in after.text(),
        "EX-AUTH-001",
        f"the request with {described} was refused, but its code ran: the session holds what it set",
    )
