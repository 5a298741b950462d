"""The origin policy parses URLs; it never matches a string prefix (spec/002 "Restrict URLs")."""

from __future__ import annotations

from typing import Any

import pytest

from reference.policy import OriginError, OriginSet, async_origin_policy, origin_policy

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.browser]

ALLOWED = OriginSet(["https://example.com", "http://127.0.0.1:8080"])


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com",
        "https://example.com/",
        "https://EXAMPLE.com/path?q=1#frag",
        "https://example.com:443/a",
        "https://example.com./a",
        "http://127.0.0.1:8080/blank.html",
    ],
)
def test_permitted_origins(url: str) -> None:
    assert ALLOWED.allows(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com.evil.test/",  # suffix look-alike
        "https://evil.test/https://example.com",  # prefix in the path
        "https://example.com@evil.test/",  # userinfo look-alike
        "https://user:pass@example.com/",  # credentials are never forwarded
        "https://user@example.com/",
        "http://example.com/",  # scheme differs
        "https://example.com:8443/",  # port differs
        "http://127.0.0.1:8081/",
        "http://localhost:8080/",  # same machine, different origin
        "https://exаmple.com/",  # Cyrillic a
        "javascript:alert(1)",
        "file:///etc/passwd",
        "data:text/html,hi",
        "about:blank",
        "https://example.com:99999/",
        "not a url",
        "",
    ],
)
def test_refused_urls(url: str) -> None:
    assert not ALLOWED.allows(url)


def test_configuration_errors_name_the_bad_origin() -> None:
    with pytest.raises(OriginError, match=r"example\.com/path"):
        OriginSet(["https://example.com/path"])
    with pytest.raises(OriginError, match="ftp"):
        OriginSet(["ftp://example.com"])


def test_sdk_callbacks_return_exactly_booleans() -> None:
    policy = origin_policy(["https://example.com"])
    assert policy({}, "https://example.com/a") is True
    assert policy({}, "https://example.com.evil.test/") is False
    async_policy = async_origin_policy(ALLOWED)
    assert _settle(async_policy({}, "https://example.com/")) is True
    assert _settle(async_policy({}, "https://evil.test/")) is False


def _settle(awaitable: Any) -> object:
    # The policy never suspends, so stepping its coroutine once yields the result without an event loop
    # (sync Playwright elsewhere in this session keeps the thread's loop busy).
    try:
        awaitable.send(None)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the policy suspended")
