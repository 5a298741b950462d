"""Starting an isolated Chromium the way the reference driver expects, and stopping it on every exit path.

Choices, from spec/000 "Start with an async driver" and the machine notes:
- ``OPENAI_EXAMPLE_BROWSER_CHANNEL=chrome`` selects an installed Chrome; otherwise Debian's ``/usr/bin/chromium``
  when present (Playwright cannot download its own build here), else Playwright's bundled Chromium.
- The sandbox stays on whenever Chromium can use it; only as root, where Chromium refuses to start sandboxed,
  is it turned off.
- ``--host-resolver-rules`` keeps every DNS lookup local (loopback stays reachable), which is the one setting
  that stops Chromium's background requests to Google services; ``--disable-quic`` stops QUIC probes. No
  ``--disable-features`` is passed because it would replace Playwright's own list.
- The browser gets an empty temporary HOME, so no user profile, certificate store or config is read, and
  Playwright's own temporary profile; both are removed when the browser stops.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, Final

from playwright.async_api import Browser as AsyncBrowser
from playwright.async_api import Playwright as AsyncPlaywright
from playwright.async_api import async_playwright
from playwright.sync_api import Browser, Playwright, sync_playwright

DEBIAN_CHROMIUM: Final = "/usr/bin/chromium"
CHANNEL_VARIABLE: Final = "OPENAI_EXAMPLE_BROWSER_CHANNEL"
NETWORK_QUIET_ARGS: Final = (
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
    "--disable-quic",
)


class LaunchError(RuntimeError):
    """The browser could not be configured or started."""


def launch_options(home: str, *, headless: bool = True) -> dict[str, Any]:
    """Keyword arguments for ``chromium.launch`` (shared by the sync and async launchers)."""
    channel = os.environ.get(CHANNEL_VARIABLE)
    if channel not in (None, "", "chrome"):
        raise LaunchError(f"{CHANNEL_VARIABLE} must be unset or 'chrome', not {channel!r}.")
    options: dict[str, Any] = {
        "headless": headless,
        # Chromium cannot start sandboxed as root; everywhere else the sandbox stays on.
        "chromium_sandbox": os.geteuid() != 0,
        "args": list(NETWORK_QUIET_ARGS),
        "env": {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home},
        "handle_sigint": False,
    }
    if channel == "chrome":
        options["channel"] = "chrome"
    elif os.path.exists(DEBIAN_CHROMIUM):
        options["executable_path"] = DEBIAN_CHROMIUM
    return options


def context_options(viewport: tuple[int, int] = (1280, 720)) -> dict[str, Any]:
    """An isolated context: no browser downloads, no service workers, no stored credentials, fixed viewport."""
    width, height = viewport
    return {
        "viewport": {"width": width, "height": height},
        "accept_downloads": False,
        "service_workers": "block",
        "locale": "en-US",
    }


@dataclass
class SyncBrowserProcess:
    """A running sync Playwright and its browser, with everything needed to stop them."""

    playwright: Playwright
    browser: Browser
    home: str

    @classmethod
    def start(cls, *, headless: bool = True) -> SyncBrowserProcess:
        home = tempfile.mkdtemp(prefix="rdk-browser-home-")
        manager = sync_playwright()
        try:
            playwright = manager.start()
        except BaseException:
            shutil.rmtree(home, ignore_errors=True)
            raise
        try:
            browser = playwright.chromium.launch(**launch_options(home, headless=headless))
        except BaseException:
            playwright.stop()
            shutil.rmtree(home, ignore_errors=True)
            raise
        return cls(playwright, browser, home)

    def close(self) -> None:
        try:
            self.browser.close()
        finally:
            try:
                self.playwright.stop()
            finally:
                shutil.rmtree(self.home, ignore_errors=True)


@dataclass
class AsyncBrowserProcess:
    """The async twin of :class:`SyncBrowserProcess`."""

    playwright: AsyncPlaywright
    browser: AsyncBrowser
    home: str

    @classmethod
    async def start(cls, *, headless: bool = True) -> AsyncBrowserProcess:
        home = tempfile.mkdtemp(prefix="rdk-browser-home-")
        try:
            playwright = await async_playwright().start()
        except BaseException:
            shutil.rmtree(home, ignore_errors=True)
            raise
        try:
            browser = await playwright.chromium.launch(**launch_options(home, headless=headless))
        except BaseException:
            await playwright.stop()
            shutil.rmtree(home, ignore_errors=True)
            raise
        return cls(playwright, browser, home)

    async def close(self) -> None:
        try:
            await self.browser.close()
        finally:
            try:
                await self.playwright.stop()
            finally:
                shutil.rmtree(self.home, ignore_errors=True)


@contextmanager
def launch(*, headless: bool = True) -> Iterator[SyncBrowserProcess]:
    """Start an isolated browser for the sync driver; it is stopped however the block exits."""
    process = SyncBrowserProcess.start(headless=headless)
    try:
        yield process
    finally:
        process.close()


@asynccontextmanager
async def launch_async(*, headless: bool = True) -> AsyncIterator[AsyncBrowserProcess]:
    """Start an isolated browser for the async driver; it is stopped however the block exits."""
    process = await AsyncBrowserProcess.start(headless=headless)
    try:
        yield process
    finally:
        await process.close()
