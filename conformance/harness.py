"""Session-wide pieces of browser certification: the fixture server, the event loop, shared resources, the factory.

The plugin starts one :class:`BrowserHarness` per pytest process (so one per xdist worker) when ``--driver`` is
given, and probes the factory once before any check runs, so a factory that raises or returns something that is
not a driver becomes one clear usage error instead of a failure in every check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from conformance.driver import DriverProfile, DriverSetupError, HarnessLoop, open_driver
from conformance.environment import DriverHints, Environment, SharedResources
from conformance.fixture_server import FixtureServer
from conformance.subject import Subject


class BrowserHarness:
    def __init__(self, spec: str, factory: Callable[..., Any]) -> None:
        self.spec = spec
        self.factory = factory
        self.server = FixtureServer().start()
        self.loop = HarnessLoop()
        self.shared = SharedResources()
        self.profile: DriverProfile | None = None

    def environment(self, session: str, start_page: str, hints: DriverHints) -> Environment:
        # Async drivers need their loop turning while a check waits for page effects (their dialog and
        # download handlers run on it); sync drivers are served by a plain sleep.
        return Environment(self.server, session, start_page, hints, self.shared, poll=self.loop.sleep)

    @contextmanager
    def subject(self, start_page: str = "blank.html", hints: DriverHints | None = None) -> Iterator[Subject]:
        """A fresh driver from the factory for one check, cleaned up afterwards."""
        with self.session_token() as token:
            env = self.environment(token, start_page, hints or DriverHints())
            driver, cleanup = open_driver(self.factory, env, self.loop)
            try:
                profile = DriverProfile.of(driver)
                self.profile = self.profile or profile
                yield Subject(driver, profile, self.loop, env)
            finally:
                cleanup()

    @contextmanager
    def session_token(self) -> Iterator[str]:
        tokens = self.server.session()
        try:
            yield next(tokens)
        finally:
            tokens.close()

    def probe(self) -> DriverProfile:
        """Create and clean up one driver, raising :class:`DriverSetupError` with a one-line reason."""
        with self.subject() as subject:
            return subject.profile

    def close(self) -> list[BaseException]:
        errors = self.shared.close_all(self.loop.resolve)
        self.loop.close()
        self.server.stop()
        return errors


__all__ = ["BrowserHarness", "DriverSetupError"]
