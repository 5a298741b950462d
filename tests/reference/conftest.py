"""Fixtures for the reference driver tests: one fixture server per session and one browser per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rdk_server import FixtureServer, serve

from reference.browser import BrowserLimits, PlaywrightBrowserDriver, SyncBrowserProcess
from reference.grants import GrantStore


@pytest.fixture(scope="session")
def server() -> Iterator[FixtureServer]:
    yield from serve()


# Module scope, not session: while a sync Playwright runs, asyncio sees a running loop in this thread, and
# asyncio.run in any later test of the same xdist worker (the async toolset checks, say) would fail.
@pytest.fixture(scope="module")
def browser_process() -> Iterator[SyncBrowserProcess]:
    process = SyncBrowserProcess.start()
    try:
        yield process
    finally:
        process.close()


class DriverFactory:
    """Opens sync drivers on the session browser and closes them after the test."""

    def __init__(self, process: SyncBrowserProcess, server: FixtureServer) -> None:
        self._process = process
        self._server = server
        self._open: list[PlaywrightBrowserDriver] = []
        self.grants = GrantStore()

    def __call__(
        self,
        page: str = "blank.html",
        *,
        observation: bool = True,
        bind_targets: bool = False,
        limits: BrowserLimits | None = None,
    ) -> PlaywrightBrowserDriver:
        driver = PlaywrightBrowserDriver.create(
            self._process.browser,
            allowed_origins=[self._server.main],
            start_url=self._server.url(page),
            observation=observation,
            bind_targets=bind_targets,
            limits=limits,
            grants=self.grants,
        )
        self._open.append(driver)
        return driver

    def close(self) -> None:
        for driver in self._open:
            driver.close()


@pytest.fixture
def open_driver(browser_process: SyncBrowserProcess, server: FixtureServer) -> Iterator[DriverFactory]:
    server.reset()
    factory = DriverFactory(browser_process, server)
    try:
        yield factory
    finally:
        factory.close()
