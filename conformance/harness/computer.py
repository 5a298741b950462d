"""Session-wide pieces of computer certification: the factory, the desktop, and a fresh driver per check.

The plugin makes one :class:`ComputerHarness` per pytest process when ``--computer-driver`` is given, on the run's
one harness loop. The desktop starts the first time a check asks for it (:mod:`conformance.harness.fixtures`), so
a desktop that cannot start makes the checks "not checked" rather than the run a usage error.

Until the factory has made one driver, a factory failure is the caller's mistake (a usage error that stops the
run); after that, a factory that fails in one check is an environment problem, and a cleanup that raises or
hangs is a note on the certificate, exactly as for browser drivers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from conformance import software
from conformance.assertions import EnvironmentProblem
from conformance.harness.computer_environment import ComputerEnvironment
from conformance.harness.computer_subject import ComputerSubject
from conformance.harness.errors import DriverSetupError
from conformance.harness.factory import Cleanup, close_driver, open_on_driver_thread
from conformance.harness.loop import HarnessLoop

Note = Callable[[str], None]


class ComputerHarness:
    def __init__(self, spec: str, factory: Callable[..., Any], loop: HarnessLoop, factory_timeout: float) -> None:
        self.spec = spec
        self.factory = factory
        self.loop = loop
        self.factory_timeout = factory_timeout
        # What the driver runs on, read from the first driver the factory made (None until then).
        self.software: dict[str, str] | None = None

    @property
    def factory_worked(self) -> bool:
        return self.software is not None

    def describe(self, driver: object) -> dict[str, str]:
        """What the driver runs on; read where the driver's code runs, like every other call into it."""
        described: dict[str, str] = self.loop.run(
            lambda: software.describe(driver), what="reading the driver's versions"
        )
        return described

    def make_subject(self, driver: object, env: ComputerEnvironment) -> ComputerSubject:
        return ComputerSubject(driver, self.loop, env)

    def close(self) -> list[str]:
        """Release what the harness holds for the whole run (nothing here); what went wrong, one line each."""
        return []

    def open(self, env: ComputerEnvironment) -> tuple[object, Cleanup]:
        """``factory(env)`` unwrapped on the driver thread, under the deadline; DriverSetupError if it fails."""
        return open_on_driver_thread(self.factory, env, self.loop, self.factory_timeout)

    @contextmanager
    def subject(self, env: ComputerEnvironment, note: Note) -> Iterator[ComputerSubject]:
        """A fresh driver from the factory for one check, cleaned up afterwards (a cleanup failure is a note).

        Raises :class:`DriverSetupError` when the factory fails before it ever worked, and
        :class:`EnvironmentProblem` when it fails after working earlier in the run.
        """
        try:
            driver, cleanup = self.open(env)
        except DriverSetupError as error:
            if not self.factory_worked:
                raise
            raise EnvironmentProblem(f"{error}; it worked earlier in the run") from None
        generation = self.loop.generation
        try:
            if self.software is None:
                self.software = self.describe(driver)
            yield self.make_subject(driver, env)
        finally:
            problem = close_driver(self.loop, cleanup, generation)
            if problem:
                note(problem)
