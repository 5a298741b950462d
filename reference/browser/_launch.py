"""Starting an isolated Chromium the way the reference driver expects, and stopping it on every exit path.

Choices, from spec/000 "Start with an async driver" and the machine notes:
- ``OPENAI_EXAMPLE_BROWSER_CHANNEL=chrome`` selects an installed Chrome, and ``DRIVERKIT_CHROMIUM`` names any other
  Chromium executable. Otherwise a headless browser is Debian's headless shell
  (``/usr/bin/chromium-headless-shell``) when installed, and a headed one, or a headless one without the shell,
  Debian's ``/usr/bin/chromium`` (Playwright cannot download its own build here); with neither, Playwright's own.
- Why the headless shell first: it is what Playwright itself runs for ``headless=True`` (Chromium's headless
  shell, without the full browser's profile services), and a fresh context with its first page costs about a
  third of the CPU it costs in the full browser's headless mode (0.155 vs 0.55 busy core-seconds measured here),
  which is most of what a driver per task or per check costs. A headed browser needs the full one.
- The sandbox stays on whenever Chromium can use it; only as root, where Chromium refuses to start sandboxed,
  is it turned off. ``DRIVERKIT_CHROMIUM_SANDBOX=off`` turns it off for a non-root user too: inside a container
  under Docker's default seccomp profile Chromium cannot build its sandbox, and the container is the boundary.
- ``--host-resolver-rules`` keeps every DNS lookup local (loopback stays reachable), which is the one setting
  that stops Chromium's background requests to Google services; ``--disable-quic`` stops QUIC probes. No
  ``--disable-features`` is passed because it would replace Playwright's own list.
- The browser gets an empty temporary HOME, so no user profile, certificate store or config is read, and
  Playwright's own temporary profile; both are removed when the browser stops.
- Given a Playwright server or DevTools endpoint (options or environment, see ``_remote``), the process connects
  to that browser instead of launching one, and stopping it only disconnects.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from playwright.async_api import Browser as AsyncBrowser
from playwright.async_api import Playwright as AsyncPlaywright
from playwright.async_api import async_playwright
from playwright.sync_api import Browser, Playwright, sync_playwright

from ._errors import LaunchError
from ._remote import RemoteBrowser, connect, connect_async, connect_timeout, gone, remote_browser, went_away

DEBIAN_CHROMIUM: Final = "/usr/bin/chromium"
DEBIAN_HEADLESS_SHELL: Final = "/usr/bin/chromium-headless-shell"
CHANNEL_VARIABLE: Final = "OPENAI_EXAMPLE_BROWSER_CHANNEL"
EXECUTABLE_VARIABLE: Final = "DRIVERKIT_CHROMIUM"
SANDBOX_VARIABLE: Final = "DRIVERKIT_CHROMIUM_SANDBOX"
NETWORK_QUIET_ARGS: Final = (
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
    "--disable-quic",
)


def launch_options(home: str, *, headless: bool = True) -> dict[str, Any]:
    """Keyword arguments for ``chromium.launch`` (shared by the sync and async launchers)."""
    channel = os.environ.get(CHANNEL_VARIABLE)
    if channel not in (None, "", "chrome"):
        raise LaunchError(f"{CHANNEL_VARIABLE} must be unset or 'chrome', not {channel!r}.")
    options: dict[str, Any] = {
        "headless": headless,
        "chromium_sandbox": _sandbox(),
        "args": list(NETWORK_QUIET_ARGS),
        "env": {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home},
        "handle_sigint": False,
    }
    if channel == "chrome":
        options["channel"] = "chrome"
    else:
        executable = chromium_executable(headless=headless)
        if executable is not None:
            options["executable_path"] = executable
    return options


def chromium_executable(*, headless: bool) -> str | None:
    """The Chromium to launch (see the module docstring), or None for Playwright's bundled one."""
    named = os.environ.get(EXECUTABLE_VARIABLE, "")
    if named:
        if not (os.path.isfile(named) and os.access(named, os.X_OK)):
            raise LaunchError(f"{EXECUTABLE_VARIABLE}={named!r} is not an executable file.")
        return named
    for candidate in (DEBIAN_HEADLESS_SHELL, DEBIAN_CHROMIUM) if headless else (DEBIAN_CHROMIUM,):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def _sandbox() -> bool:
    setting = os.environ.get(SANDBOX_VARIABLE, "") or "auto"
    if setting not in ("auto", "on", "off"):
        raise LaunchError(f"{SANDBOX_VARIABLE} must be auto, on or off, not {setting!r}.")
    if setting == "auto":
        # Chromium cannot start sandboxed as root; everywhere else the sandbox stays on.
        return os.geteuid() != 0
    return setting == "on"


def context_options(viewport: tuple[int, int] = (1280, 720)) -> dict[str, Any]:
    """An isolated context: no browser downloads, no service workers, no stored credentials, fixed viewport."""
    width, height = viewport
    return {
        "viewport": {"width": width, "height": height},
        "accept_downloads": False,
        "service_workers": "block",
        "locale": "en-US",
    }


@dataclass(frozen=True)
class BrowserSource:
    """Where a browser process gets its browser: launched here (``remote`` None) or connected to."""

    headless: bool = True
    remote: RemoteBrowser | None = None
    connect_timeout_s: float = 0.0

    @classmethod
    def resolve(
        cls,
        *,
        headless: bool = True,
        ws_endpoint: str | None = None,
        cdp_endpoint: str | None = None,
        connect_timeout_s: float | None = None,
    ) -> BrowserSource:
        """Read the options and the environment once, before anything starts, so bad input fails first."""
        remote = remote_browser(ws_endpoint=ws_endpoint, cdp_endpoint=cdp_endpoint)
        timeout = connect_timeout(connect_timeout_s) if remote is not None else 0.0
        return cls(headless, remote, timeout)


PlaywrightT = TypeVar("PlaywrightT", Playwright, AsyncPlaywright)
BrowserT = TypeVar("BrowserT", Browser, AsyncBrowser)


@dataclass
class _BrowserProcess(Generic[PlaywrightT, BrowserT]):
    """A running Playwright and its browser (launched or connected), with everything needed to stop them; the
    sync and async processes below differ only in how they start and stop."""

    playwright: PlaywrightT
    browser: BrowserT
    home: str | None
    remote: RemoteBrowser | None = None

    def usable(self) -> BrowserT:
        """The browser, or the error naming the endpoint when a connected browser went away."""
        if self.remote is not None and not self.browser.is_connected():
            raise gone(self.remote)
        return self.browser

    def explain(self, error: BaseException) -> None:
        """Raise the error naming the endpoint when ``error`` came from a connected browser that went away."""
        if self.remote is not None and went_away(self.browser.is_connected(), error):
            raise gone(self.remote) from error


@dataclass
class SyncBrowserProcess(_BrowserProcess[Playwright, Browser]):
    """The sync Playwright and its browser."""

    @classmethod
    def start(
        cls,
        *,
        headless: bool = True,
        ws_endpoint: str | None = None,
        cdp_endpoint: str | None = None,
        connect_timeout_s: float | None = None,
    ) -> SyncBrowserProcess:
        """Launch an isolated Chromium, or connect to the one an endpoint option or variable names."""
        source = BrowserSource.resolve(
            headless=headless, ws_endpoint=ws_endpoint, cdp_endpoint=cdp_endpoint, connect_timeout_s=connect_timeout_s
        )
        home = None if source.remote is not None else tempfile.mkdtemp(prefix="rdk-browser-home-")
        manager = sync_playwright()
        try:
            playwright = manager.start()
        except BaseException:
            _remove(home)
            raise
        try:
            if source.remote is not None:
                browser = connect(playwright, source.remote, source.connect_timeout_s)
            else:
                assert home is not None
                browser = playwright.chromium.launch(**launch_options(home, headless=headless))
        except BaseException:
            playwright.stop()
            _remove(home)
            raise
        return cls(playwright, browser, home, source.remote)

    def close(self) -> None:
        """Stop a launched browser; for a connected one, close what this connection opened and disconnect."""
        try:
            self.browser.close()
        finally:
            try:
                self.playwright.stop()
            finally:
                _remove(self.home)


@dataclass
class AsyncBrowserProcess(_BrowserProcess[AsyncPlaywright, AsyncBrowser]):
    """The async Playwright and its browser."""

    @classmethod
    async def start(
        cls,
        *,
        headless: bool = True,
        ws_endpoint: str | None = None,
        cdp_endpoint: str | None = None,
        connect_timeout_s: float | None = None,
    ) -> AsyncBrowserProcess:
        source = BrowserSource.resolve(
            headless=headless, ws_endpoint=ws_endpoint, cdp_endpoint=cdp_endpoint, connect_timeout_s=connect_timeout_s
        )
        home = None if source.remote is not None else tempfile.mkdtemp(prefix="rdk-browser-home-")
        try:
            playwright = await async_playwright().start()
        except BaseException:
            _remove(home)
            raise
        try:
            if source.remote is not None:
                browser = await connect_async(playwright, source.remote, source.connect_timeout_s)
            else:
                assert home is not None
                browser = await playwright.chromium.launch(**launch_options(home, headless=headless))
        except BaseException:
            await playwright.stop()
            _remove(home)
            raise
        return cls(playwright, browser, home, source.remote)

    async def close(self) -> None:
        try:
            await self.browser.close()
        finally:
            try:
                await self.playwright.stop()
            finally:
                _remove(self.home)


def _remove(home: str | None) -> None:
    if home is not None:
        shutil.rmtree(home, ignore_errors=True)


@contextmanager
def launch(
    *,
    headless: bool = True,
    ws_endpoint: str | None = None,
    cdp_endpoint: str | None = None,
    connect_timeout_s: float | None = None,
) -> Iterator[SyncBrowserProcess]:
    """Start an isolated browser (or connect to a remote one) for the sync driver; stopped however the block exits.

    ``ws_endpoint`` names a Playwright server, ``cdp_endpoint`` a DevTools endpoint; without either, the
    ``DRIVERKIT_BROWSER_WS_ENDPOINT`` / ``DRIVERKIT_BROWSER_CDP_ENDPOINT`` variables are read, and with neither
    set a local Chromium is launched. ``connect_timeout_s`` (else ``DRIVERKIT_BROWSER_CONNECT_TIMEOUT_S``, else
    20 s) bounds the connection. ``headless`` applies to a launched browser only: a remote one runs as started.
    """
    process = SyncBrowserProcess.start(
        headless=headless, ws_endpoint=ws_endpoint, cdp_endpoint=cdp_endpoint, connect_timeout_s=connect_timeout_s
    )
    try:
        yield process
    finally:
        process.close()


@asynccontextmanager
async def launch_async(
    *,
    headless: bool = True,
    ws_endpoint: str | None = None,
    cdp_endpoint: str | None = None,
    connect_timeout_s: float | None = None,
) -> AsyncIterator[AsyncBrowserProcess]:
    """The async twin of :func:`launch`."""
    process = await AsyncBrowserProcess.start(
        headless=headless, ws_endpoint=ws_endpoint, cdp_endpoint=cdp_endpoint, connect_timeout_s=connect_timeout_s
    )
    try:
        yield process
    finally:
        await process.close()
