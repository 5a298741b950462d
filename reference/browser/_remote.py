"""Connecting to a browser that runs elsewhere instead of launching one: a Playwright server or a DevTools endpoint.

Where production drivers run, the browser is often a Playwright server (``playwright launch-server``, reached
with ``connect`` over ws://) or a Chromium exposing its DevTools endpoint (``--remote-debugging-port``, reached
with ``connect_over_cdp`` over http:// or ws://). The endpoint comes from a keyword option or, when no option
is given, from the environment (:data:`WS_ENDPOINT_VARIABLE`, :data:`CDP_ENDPOINT_VARIABLE`); exactly one may
name it. Connecting has a deadline, and every failure names the endpoint and the method tried.

What stays the same as a local launch: each driver opens its own fresh context whose traffic goes through its
own network guard (a per-context proxy, so the policy needs nothing from how the browser was started), and it
closes only that context. Disconnecting leaves the remote browser, and contexts others opened in it (the
default context a DevTools endpoint always has), running. The guard listens on this machine's loopback unless
:data:`GUARD_HOST_VARIABLE` names another address of this machine that the remote browser reaches (a container
network's gateway, say); a browser that cannot reach the guard loads nothing at all rather than loading
unguarded.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal
from urllib.parse import urlsplit

from playwright.async_api import Browser as AsyncBrowser
from playwright.async_api import Playwright as AsyncPlaywright
from playwright.sync_api import Browser, Playwright

from ._errors import RemoteBrowserError

WS_ENDPOINT_VARIABLE: Final = "DRIVERKIT_BROWSER_WS_ENDPOINT"
CDP_ENDPOINT_VARIABLE: Final = "DRIVERKIT_BROWSER_CDP_ENDPOINT"
CONNECT_TIMEOUT_VARIABLE: Final = "DRIVERKIT_BROWSER_CONNECT_TIMEOUT_S"
DEFAULT_CONNECT_TIMEOUT_S: Final = 20.0
GUARD_HOST_VARIABLE: Final = "DRIVERKIT_BROWSER_GUARD_HOST"

Protocol = Literal["playwright", "cdp"]
_SCHEMES: Final[Mapping[Protocol, frozenset[str]]] = {
    "playwright": frozenset({"ws", "wss"}),
    "cdp": frozenset({"http", "https", "ws", "wss"}),
}
_METHODS: Final[Mapping[Protocol, str]] = {"playwright": "Playwright connect", "cdp": "connect_over_cdp"}
_KINDS: Final[Mapping[Protocol, str]] = {"playwright": "the Playwright server", "cdp": "the DevTools endpoint"}


@dataclass(frozen=True)
class RemoteBrowser:
    """Where a browser to connect to runs, and who said so (an option or an environment variable)."""

    protocol: Protocol
    url: str
    source: str

    @property
    def shown(self) -> str:
        """The endpoint without its path, query or userinfo: hosted providers put access tokens in the query or the
        userinfo, and a Playwright server (its random path) and the kit's own endpoints (``/TOKEN/``, see
        ``serve``) carry theirs in the path. Certificates and error messages show this, and are read by others."""
        parts = urlsplit(self.url)
        host = parts.hostname or ""
        authority = f"[{host}]" if ":" in host else host
        if parts.port is not None:
            authority += f":{parts.port}"
        path = parts.path if parts.path in ("", "/") else "/..."
        hidden = "?..." if parts.query else ""
        return f"{parts.scheme}://{authority}{path}{hidden}"

    def redact(self, text: str) -> str:
        """``text`` with this endpoint's path and query (which may hold its token) left out wherever they appear."""
        parts = urlsplit(self.url)
        if parts.query:
            text = text.replace(parts.query, "...")
        if parts.path not in ("", "/"):
            text = text.replace(parts.path, "/...")
        return text

    def describe(self) -> str:
        return f"{_KINDS[self.protocol]} at {self.shown} (from {self.source})"

    @property
    def method(self) -> str:
        return _METHODS[self.protocol]


def _checked(protocol: Protocol, url: str, source: str) -> RemoteBrowser:
    def malformed(why: str) -> RemoteBrowserError:
        schemes = "/".join(f"{scheme}://" for scheme in sorted(_SCHEMES[protocol]))
        return RemoteBrowserError(
            f"{source} is not a usable endpoint for {_KINDS[protocol]} ({why}); expected {schemes}HOST:PORT/..."
        )

    text = url.strip()
    if not text:
        raise malformed("it is empty")
    if any(character.isspace() for character in text):
        raise malformed("it contains white space")
    parts = urlsplit(text)
    if parts.scheme not in _SCHEMES[protocol]:
        raise malformed(f"scheme {parts.scheme or 'missing'!r}")
    if not parts.hostname:
        raise malformed("no host")
    try:
        port = parts.port
    except ValueError:
        raise malformed("the port is not a number from 0 to 65535") from None
    if port == 0:
        raise malformed("port 0")
    return RemoteBrowser(protocol, text, source)


def remote_browser(
    *,
    ws_endpoint: str | None = None,
    cdp_endpoint: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> RemoteBrowser | None:
    """The browser to connect to, or None to launch one.

    Options win over the environment; within each, naming both a Playwright server and a DevTools endpoint is
    an error rather than a silent choice. An empty environment variable counts as unset.
    """
    if ws_endpoint is not None or cdp_endpoint is not None:
        if ws_endpoint is not None and cdp_endpoint is not None:
            raise RemoteBrowserError(
                "both ws_endpoint and cdp_endpoint were given; name one browser: a Playwright server (ws_endpoint) "
                "or a DevTools endpoint (cdp_endpoint)"
            )
        if ws_endpoint is not None:
            return _checked("playwright", ws_endpoint, "the ws_endpoint option")
        assert cdp_endpoint is not None
        return _checked("cdp", cdp_endpoint, "the cdp_endpoint option")
    values = os.environ if environ is None else environ
    ws_value = values.get(WS_ENDPOINT_VARIABLE) or None
    cdp_value = values.get(CDP_ENDPOINT_VARIABLE) or None
    if ws_value is not None and cdp_value is not None:
        raise RemoteBrowserError(
            f"both {WS_ENDPOINT_VARIABLE} and {CDP_ENDPOINT_VARIABLE} are set; set one of them "
            "(a Playwright server or a DevTools endpoint), or neither to launch a local browser"
        )
    if ws_value is not None:
        return _checked("playwright", ws_value, WS_ENDPOINT_VARIABLE)
    if cdp_value is not None:
        return _checked("cdp", cdp_value, CDP_ENDPOINT_VARIABLE)
    return None


def _failure(remote: RemoteBrowser, timeout_s: float, error: BaseException) -> RemoteBrowserError:
    # Playwright's message carries a multi-line call log; its first line says what happened.
    first_line = remote.redact((str(error).strip().splitlines() or [type(error).__name__])[0])
    return RemoteBrowserError(
        f"could not connect to {remote.describe()}: tried {remote.method} with a {timeout_s:g} s deadline: {first_line}"
    )


def connect(playwright: Playwright, remote: RemoteBrowser, timeout_s: float) -> Browser:
    """Connect with the sync API, within ``timeout_s`` seconds."""
    try:
        if remote.protocol == "playwright":
            return playwright.chromium.connect(remote.url, timeout=timeout_s * 1000)
        return playwright.chromium.connect_over_cdp(remote.url, timeout=timeout_s * 1000)
    except Exception as error:
        raise _failure(remote, timeout_s, error) from error


async def connect_async(playwright: AsyncPlaywright, remote: RemoteBrowser, timeout_s: float) -> AsyncBrowser:
    """The async twin of :func:`connect`."""
    try:
        if remote.protocol == "playwright":
            return await playwright.chromium.connect(remote.url, timeout=timeout_s * 1000)
        return await playwright.chromium.connect_over_cdp(remote.url, timeout=timeout_s * 1000)
    except Exception as error:
        raise _failure(remote, timeout_s, error) from error


def route(remote: RemoteBrowser | None) -> str:
    """How a browser process reached its browser, as a certificate records it (no path, query or password shown)."""
    if remote is None:
        return "launched by the driver"
    return f"{_KINDS[remote.protocol]} at {remote.shown}, with {remote.method} (from {remote.source})"


def went_away(connected: bool, error: BaseException) -> bool:
    """Whether ``error``, raised by a call into a connected browser, means the browser itself is gone.

    The connection's "disconnected" event can lag the failed call (the async API dispatches it on a later loop
    turn), so Playwright's closed-target error counts too. Its class is not part of Playwright's public API,
    hence the name.
    """
    return not connected or type(error).__name__ == "TargetClosedError"


def gone(remote: RemoteBrowser) -> RemoteBrowserError:
    """The error for a connected browser that went away (it closed, crashed, or the connection dropped)."""
    return RemoteBrowserError(
        f"lost the connection to {remote.describe()}: the browser closed or the connection dropped; "
        "no new driver can be opened in it"
    )


def connect_timeout(timeout_s: float | None = None, environ: Mapping[str, str] | None = None) -> float:
    """The connection deadline in seconds: the option, else :data:`CONNECT_TIMEOUT_VARIABLE`, else the default."""
    if timeout_s is not None:
        if not 0 < timeout_s < float("inf"):
            raise RemoteBrowserError(f"connect_timeout_s must be a positive number of seconds, not {timeout_s!r}")
        return float(timeout_s)
    value = (os.environ if environ is None else environ).get(CONNECT_TIMEOUT_VARIABLE) or ""
    if not value:
        return DEFAULT_CONNECT_TIMEOUT_S
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise RemoteBrowserError(f"{CONNECT_TIMEOUT_VARIABLE} must be a positive number of seconds, not {value!r}")
    return seconds


def guard_host(environ: Mapping[str, str] | None = None) -> str:
    """The IPv4 address the network guard listens on: :data:`GUARD_HOST_VARIABLE`, else loopback."""
    value = ((os.environ if environ is None else environ).get(GUARD_HOST_VARIABLE) or "").strip()
    if not value:
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        address = None
    if address is None or address.version != 4 or address.is_unspecified:
        raise RemoteBrowserError(
            f"{GUARD_HOST_VARIABLE} must be an IPv4 address of this machine that the browser reaches (the guard "
            f"listens there and every request of the browser goes through it), not {value!r}"
        )
    return str(address)
