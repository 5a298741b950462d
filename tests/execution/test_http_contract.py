"""The service's HTTP surface: authentication first, then request validation with messages naming the problem."""

from __future__ import annotations

import json

import pytest

from reference.execution import ExecutionService

from ._http import execute, send


def test_missing_token_is_401_with_bearer_challenge(service: ExecutionService) -> None:
    reply = send(service.endpoint, b"{}", token=None)
    assert reply.status == 401
    assert reply.headers["www-authenticate"].startswith("Bearer")
    assert "token" in reply.body["error"]


def test_wrong_token_is_401_and_runs_nothing(service: ExecutionService, token: str) -> None:
    reply = execute(service.endpoint, token + "x", "auth-probe", "log('ran')")
    assert reply.status == 401
    assert "auth-probe" not in service.pool.live_sessions()


def test_authentication_is_checked_before_validation(service: ExecutionService) -> None:
    # A malformed body from an unauthenticated caller still gets 401, revealing nothing about validation.
    assert send(service.endpoint, b"not json", token="wrong-token-wrong-token").status == 401


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"not json", "JSON object"),
        (b"[1, 2]", "JSON object"),
        (json.dumps({"session_id": "s", "language": "python"}).encode(), "Missing field(s): code"),
        (json.dumps({"session_id": "s", "language": "python", "code": "1", "x": 1}).encode(), "Unexpected field(s): x"),
        (json.dumps({"session_id": "", "language": "python", "code": "1"}).encode(), "session_id"),
        (json.dumps({"session_id": "a/b", "language": "python", "code": "1"}).encode(), "session_id"),
        (json.dumps({"session_id": "s", "language": 3, "code": "1"}).encode(), "language must be a string"),
        (json.dumps({"session_id": "s", "language": "python", "code": "  "}).encode(), "code must be a nonempty"),
        (json.dumps({"session_id": "s", "language": "python", "code": 5}).encode(), "code must be a nonempty"),
    ],
)
def test_malformed_requests_are_400_with_a_message(
    service: ExecutionService, token: str, body: bytes, fragment: str
) -> None:
    reply = send(service.endpoint, body, token=token)
    assert reply.status == 400
    assert fragment in reply.body["error"]


def test_unknown_language_is_400_naming_it(service: ExecutionService, token: str) -> None:
    reply = execute(service.endpoint, token, "lang", "puts 1", language="ruby")
    assert reply.status == 400
    assert "'ruby'" in reply.body["error"] and "python, javascript" in reply.body["error"]


def test_oversized_code_is_refused(service: ExecutionService, token: str) -> None:
    reply = execute(service.endpoint, token, "big", "#" * (service.limits.max_code_bytes + 1))
    assert reply.status == 400
    assert "larger than" in reply.body["error"]


def test_oversized_body_is_413(service: ExecutionService, token: str) -> None:
    reply = send(service.endpoint, b" " * (service.limits.max_request_bytes + 1), token=token)
    assert reply.status == 413


def test_wrong_path_and_method(service: ExecutionService, token: str) -> None:
    assert send(service.endpoint, b"{}", token=token, path="/run").status == 404
    reply = send(service.endpoint, None, token=token, method="GET")
    assert reply.status == 405
    assert reply.headers["allow"] == "POST"


def test_service_binds_loopback_and_requires_a_real_token(x_display: str) -> None:
    with pytest.raises(ValueError, match="at least 16"):
        ExecutionService("short", display=x_display)
    with ExecutionService("a-long-enough-token-123", display=x_display) as running:
        assert running.endpoint.startswith("http://127.0.0.1:")
