"""The service's HTTP surface: authentication first, then request validation with messages naming the problem."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from dataclasses import replace
from urllib.parse import urlsplit

import pytest

from reference.execution import ExecutionService

from ._http import execute, send
from .conftest import TEST_LIMITS

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.desktop, pytest.mark.container]


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


# Limits that attack traffic reaches quickly: a request must arrive whole within a second, two connections at once.
_TIGHT = replace(TEST_LIMITS, request_timeout_s=1.0, max_connections=2)


@pytest.fixture
def tight(x_display: str, token: str) -> Iterator[ExecutionService]:
    with ExecutionService(token, display=x_display, limits=_TIGHT) as running:
        yield running


def _connect(service: ExecutionService) -> socket.socket:
    parts = urlsplit(service.endpoint)
    return socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), timeout=10)


def _closed_within(connection: socket.socket, seconds: float, trickle: bytes = b"") -> float | None:
    """Send ``trickle`` a byte every 0.2 s until the service closes the connection; when it did, or None."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        try:
            if trickle:
                connection.sendall(trickle[:1])
                trickle = trickle[1:] or b"x"
            connection.settimeout(0.2)
            if connection.recv(4096) == b"":
                return time.monotonic() - started
        except TimeoutError:
            continue
        except OSError:  # reset: closed too
            return time.monotonic() - started
    return None


@pytest.mark.parametrize(
    "opening",
    [b"", b"POST /execute HTTP/1.1\r\n", b"POST /execute HTTP/1.1\r\nContent-Length: 100000\r\n\r\n"],
    ids=["idle connection", "headers trickled", "body trickled"],
)
def test_a_request_that_does_not_arrive_in_time_is_cut(tight: ExecutionService, opening: bytes) -> None:
    with _connect(tight) as connection:
        connection.sendall(opening)
        took = _closed_within(connection, 8.0, trickle=b"X-Slow: " + b"a" * 200 if opening else b"")
    assert took is not None, "the service still held the connection 8 s later (request_timeout_s is 1 s)"


def test_connections_over_the_cap_are_refused_at_once_and_the_service_recovers(
    tight: ExecutionService, token: str
) -> None:
    held = [_connect(tight) for _ in range(_TIGHT.max_connections)]
    try:
        time.sleep(0.2)  # both accepted and in their handler threads
        with _connect(tight) as extra:
            extra.settimeout(3)
            answer = extra.recv(4096)
        assert answer.startswith(b"HTTP/1.1 503"), answer[:80]
    finally:
        for connection in held:
            connection.close()
    time.sleep(0.2)
    assert execute(tight.endpoint, token, "after-the-flood", "log('served')").status == 200


def test_the_body_limit_is_checked_before_any_body_is_read(tight: ExecutionService, token: str) -> None:
    with _connect(tight) as connection:
        connection.sendall(
            b"POST /execute HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token.encode() + b"\r\n"
            b"Content-Length: 999999999\r\n\r\n"
        )
        connection.settimeout(3)
        assert connection.recv(4096).startswith(b"HTTP/1.1 413")
