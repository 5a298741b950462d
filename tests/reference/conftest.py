"""Fixtures for the reference driver tests: the kit's fixture server, one session per test, one browser per module.

Tests see the server through the kit's own per-check view (:class:`conformance.harness.environment.Environment`): each
test gets a fresh session token, so its effect and request records hold only what its own pages did.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from conformance.contracts.browser._endpoints import ENDPOINTS
from conformance.harness.environment import Environment
from conformance.harness.fixture_server import FixtureServer
from reference.browser import BrowserLimits, PlaywrightBrowserDriver, SyncBrowserProcess
from reference.grants import GrantStore


@pytest.fixture(scope="session")
def fixture_server() -> Iterator[FixtureServer]:
    with FixtureServer(endpoints=ENDPOINTS) as server:
        yield server


@pytest.fixture
def env(fixture_server: FixtureServer) -> Iterator[Environment]:
    tokens = fixture_server.session()
    try:
        yield Environment(fixture_server, next(tokens))
    finally:
        tokens.close()


class DriverFactory:
    """Opens sync drivers on the module's browser at pages of the test's session, and closes them afterwards."""

    def __init__(self, process: SyncBrowserProcess, env: Environment) -> None:
        self._process = process
        self._env = env
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
            allowed_origins=[self._env.main_origin],
            start_url=self._env.url(page),
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


# Depends on env, so the drivers close (and their last beacons land) before the session record is dropped.
@pytest.fixture
def open_driver(browser_process: SyncBrowserProcess, env: Environment) -> Iterator[DriverFactory]:
    factory = DriverFactory(browser_process, env)
    try:
        yield factory
    finally:
        factory.close()
