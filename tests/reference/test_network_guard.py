"""The network guard's own lifecycle: it serves while open, and closing it ends its accept loop and frees its port."""

from __future__ import annotations

import socket
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from urllib.error import URLError

import pytest

from reference.browser._guard import REFUSED_HEADER, NetworkGuard
from reference.policy import OriginSet

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]


def _refusal(guard: NetworkGuard, url: str) -> str | None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": guard.server}))
    with opener.open(url, timeout=10) as response:
        assert response.status == 204
        return response.headers.get(REFUSED_HEADER)


def test_an_open_guard_refuses_what_it_does_not_permit_on_many_connections_at_once() -> None:
    guard = NetworkGuard(OriginSet(["http://127.0.0.1:9"]))
    try:
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda n: _refusal(guard, f"http://example.invalid/{n}"), range(32)))
        assert answers == ["policy"] * 32
    finally:
        guard.close()


def test_closing_ends_the_accept_loop_and_frees_the_port() -> None:
    guard = NetworkGuard(OriginSet(()))
    port = int(guard.server.rsplit(":", 1)[1])
    held = socket.create_connection(("127.0.0.1", port))  # a client that never sends: close must not wait for it
    try:
        guard.close()
        # close() returns once its accept loop has ended (it joins the thread), not at some later poll.
        assert not guard._thread.is_alive()
        with pytest.raises((ConnectionRefusedError, URLError)):
            _refusal(guard, "http://example.invalid/")
        guard.close()  # a second close is harmless
    finally:
        held.close()
