"""Where a certification run's time goes: kit setup, the driver factory, the checks, driver cleanup, closing.

A driver author who finds certification slow needs to know whether the kit or their factory is the cost, so the
run's terminal summary breaks the time down. Each process measures its own share (a check's factory and cleanup
time travel with its teardown report, a process's setup with its first report), so with pytest-xdist the
controller adds up every worker's: the figures are then summed over workers and can exceed the wall time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator
from dataclasses import dataclass

import pytest

PHASE_PROPERTY = "driverkit-phase"


@dataclass
class PhaseTotals:
    """Seconds per phase, added up over every check (and every worker) of the run."""

    kit_setup: float = 0.0  # starting the fixture server and probing the factory once, per process
    factory: float = 0.0  # opening each check's driver through the factory
    checks: float = 0.0  # everything else in each check's setup, call and teardown
    cleanup: float = 0.0  # each check's driver cleanup
    session_close: float = 0.0  # writing the certificate and closing shared resources, in this process
    driven: int = 0  # checks that opened a driver

    def line(self) -> str:
        each = f" ({self.factory / self.driven:.2f} s each)" if self.driven else ""
        return (
            f"time by phase: kit setup {self.kit_setup:.1f} s, driver factory {self.factory:.1f} s over "
            f"{self.driven} checks{each}, checks {self.checks:.1f} s, driver cleanup {self.cleanup:.1f} s, "
            f"session close {self.session_close:.1f} s"
        )


def record(item: pytest.Item, phase: str, seconds: float) -> None:
    """Note ``seconds`` spent in ``phase`` ("factory" or "cleanup") by the check ``item``."""
    item.user_properties.append((PHASE_PROPERTY, json.dumps({phase: seconds})))


class PhaseClock:
    """The pytest plugin (one per run) that adds up the phases and prints them in the terminal summary."""

    def __init__(self) -> None:
        self.totals = PhaseTotals()
        self._unsent_setup: float | None = None  # this process's kit setup, not yet sent with a report
        self._closing_since: float | None = None

    @pytest.hookimpl(wrapper=True)
    def pytest_sessionstart(self, session: pytest.Session) -> Generator[None, None, None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self._unsent_setup = time.perf_counter() - started

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, object, object]:
        report = yield
        if self._unsent_setup is not None and isinstance(report, pytest.TestReport):
            setup = json.dumps({"kit_setup": self._unsent_setup})
            report.user_properties = [*report.user_properties, (PHASE_PROPERTY, setup)]
            self._unsent_setup = None
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        totals = self.totals
        totals.checks += report.duration
        for name, value in report.user_properties:
            if name != PHASE_PROPERTY:
                continue
            for phase, seconds in json.loads(str(value)).items():
                if phase == "kit_setup":
                    totals.kit_setup += seconds
                elif report.when == "teardown":  # a check's phases ride on each later report too: count them once
                    if phase == "factory":
                        totals.factory += seconds
                        totals.checks -= seconds
                        totals.driven += 1
                    elif phase == "cleanup":
                        totals.cleanup += seconds
                        totals.checks -= seconds

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self._closing_since = time.perf_counter()

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
        if hasattr(config, "workerinput") or not self.totals.driven:
            return
        if self._closing_since is not None:
            self.totals.session_close = time.perf_counter() - self._closing_since
        if self._unsent_setup is not None:  # the xdist controller's own probe, which made no report
            self.totals.kit_setup += self._unsent_setup
            self._unsent_setup = None
        terminalreporter.write_line(self.totals.line())
