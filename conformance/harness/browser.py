"""Session-wide pieces of browser certification: the fixture server, shared resources, the factory.

The plugin starts one :class:`BrowserHarness` per pytest process (so one per xdist worker), on the run's one
harness loop, when ``--driver`` is given, and probes the factory once before any check runs, so a factory that
raises, hangs or returns something that is not a driver becomes one clear usage error instead of a failure in
every check.

After the probe, a factory that fails in one check is an environment problem (the check is "not checked"); a
cleanup that raises or hangs is a note on the certificate (the contract says nothing about the factory). Every
call into the driver runs under the harness loop's deadline; a driver whose call hung is abandoned, not cleaned
up, because its thread is still stuck in that call.

When the fixture pages are served for a browser elsewhere (``--fixture-host``), the probe also proves that the
browser can load them: the factory must show ``env.start_url``, so the fixture server must see that request. If
it never does, the run stops before any check with one error naming the host, instead of every check failing
on a page that never loaded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from conformance import software
from conformance.assertions import EnvironmentProblem
from conformance.harness.environment import DriverHints, Environment, SharedResources
from conformance.harness.errors import DriverSetupError, describe_error
from conformance.harness.factory import Cleanup, close_driver, open_on_driver_thread
from conformance.harness.fixture_host import FixtureHost
from conformance.harness.fixture_server import FixtureServer
from conformance.harness.loop import HarnessLoop
from conformance.harness.profile import DriverProfile
from conformance.harness.subject import BrowserSubject

Note = Callable[[str], None]
# How long the probe waits for the browser to request its start page from a --fixture-host server. The factory
# has returned by then, so the page is normally requested already; the margin is for a slow remote link.
REACH_SECONDS = 10.0


class FixtureHostUnreachable(DriverSetupError):
    """The browser never loaded the probe's start page from the fixture server on ``--fixture-host``."""


class BrowserHarness:
    def __init__(
        self,
        spec: str,
        factory: Callable[..., Any],
        loop: HarnessLoop | None = None,
        factory_timeout: float | None = None,
        fixture_host: FixtureHost | None = None,
    ) -> None:
        """``loop`` is the run's harness loop; a harness used on its own (replay, a README block) makes and owns one.
        ``fixture_host`` is where the fixture server listens and the name its URLs carry (loopback by default);
        an address this machine cannot listen on raises :class:`OSError` naming it."""
        self.spec = spec
        self.factory = factory
        self._owns_loop = loop is None
        self.loop = HarnessLoop() if loop is None else loop
        self.factory_timeout = 2 * self.loop.timeout if factory_timeout is None else factory_timeout
        self.server = FixtureServer(host=fixture_host).start()
        self.shared = SharedResources(self.loop.abandoned)
        self.profile: DriverProfile | None = None

    def environment(self, session: str, start_page: str, hints: DriverHints, note: Note | None = None) -> Environment:
        return Environment(self.server, session, start_page, hints, self.shared, poll=self.loop.sleep, note=note)

    def open(self, env: Environment) -> tuple[object, Cleanup]:
        """``factory(env)`` unwrapped on the driver thread, under the deadline; DriverSetupError if it fails."""
        return open_on_driver_thread(self.factory, env, self.loop, self.factory_timeout)

    @contextmanager
    def subject(
        self, start_page: str = "blank.html", hints: DriverHints | None = None, note: Note | None = None
    ) -> Iterator[BrowserSubject]:
        """A fresh driver from the factory for one check, cleaned up afterwards.

        Without ``note`` (the probe) any factory or cleanup failure raises :class:`DriverSetupError`. With it (a
        check), a factory failure raises :class:`EnvironmentProblem` and a cleanup failure becomes a note.
        """
        with self.session_token() as token:
            env = self.environment(token, start_page, hints or DriverHints(), note)
            try:
                driver, cleanup = self.open(env)
            except DriverSetupError as error:
                if note is None:
                    # A factory that fails to show its start page may only be the symptom of a fixture host
                    # its browser cannot reach; the error then says that first.
                    raise self._unreached(env, f"the driver factory failed ({error})") or error from None
                raise EnvironmentProblem(f"{error}; it worked when the run started") from None
            generation = self.loop.generation
            try:
                profile = self.profile_of(driver)
                if self.profile is None:
                    # Read where the driver's code runs: sync Playwright objects belong to their thread.
                    found = self.loop.run(lambda: self.describe(driver), what="reading the driver's versions")
                    self.profile = profile.with_software(found).with_browser_route(env.browser_route)
                made = self.make_subject(driver, profile, env)
                made.probed = self.profile
                yield made
            finally:
                self._clean_up(cleanup, generation, note)

    def profile_of(self, driver: object) -> DriverProfile:
        """The driver's flavour and members (a Node harness reads them from its view of the JavaScript driver)."""
        return DriverProfile.of(driver)

    def describe(self, driver: object) -> dict[str, str]:
        """What the driver runs on, for the certificate (a Node harness reads it from its host instead)."""
        return software.describe(driver)

    def make_subject(self, driver: object, profile: DriverProfile, env: Environment) -> BrowserSubject:
        """The subject a check receives (a Node harness makes one whose SDK half runs in Node)."""
        return BrowserSubject(driver, profile, self.loop, env)

    def _clean_up(self, cleanup: Cleanup, generation: int, note: Note | None) -> None:
        problem = close_driver(self.loop, cleanup, generation)
        if problem is None:
            return
        if note is None:
            raise DriverSetupError(problem)
        note(problem)

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
            if not self.server.host.is_default:
                self._expect_start_page(subject.env)
            return subject.profile

    def _expect_start_page(self, env: Environment) -> None:
        """Raise :class:`FixtureHostUnreachable` unless the browser requested ``env.start_url`` from the server."""
        deadline = time.monotonic() + REACH_SECONDS
        while (problem := self._unreached(env, f"waited {REACH_SECONDS:g} s after the factory returned")) is not None:
            if time.monotonic() >= deadline:
                raise problem
            self.loop.sleep(0.05)

    def _unreached(self, env: Environment, what_happened: str) -> FixtureHostUnreachable | None:
        """The error for a ``--fixture-host`` the browser did not load ``env.start_url`` from; None when it did
        (or when the pages are on loopback, where the kit makes no such claim)."""
        host = self.server.host
        page = env.start_url.rsplit("/", 1)[-1].split("?", 1)[0]
        if host.is_default or any(request.path == page for request in env.requests()):
            return None
        main, other = self.server.ports()
        return FixtureHostUnreachable(
            f"the browser never loaded the fixture pages from --fixture-host {host.describe()}: the kit tried the "
            f"driver's first page {env.start_url} (a factory must show env.start_url) and {what_happened}, but "
            f"the fixture server (ports {main} and {other} on {host.bind}) received no request for it; the "
            f"browser must reach this machine as {host.name} on those ports"
        )

    def close(self) -> list[str]:
        """Close shared resources and the fixture server (the loop is the run's); what went wrong, one line each."""
        problems = [
            f"closing a shared resource raised {describe_error(error)}"
            for error in self.shared.close_all(lambda closer: self.loop.run(closer, what="closing shared resources"))
        ]
        if self._owns_loop:
            problems += [f"still running when the run ended: {task}" for task in self.loop.close()]
        self.server.stop()
        return problems


__all__ = ["BrowserHarness", "DriverSetupError"]
