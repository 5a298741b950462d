"""Where a certification run's CPU goes, check by check: a pytest plugin for benchmarks, not for certification.

    .venv/bin/driverkit certify --out /tmp/c -- -p tests.benchmarks.cpu_by_check -p no:randomly

For each check it reads the whole machine's busy core-seconds (``/proc/stat``: Chromium's processes count, which
the run's own rusage misses) before its setup and after its teardown, and prints the checks that cost the most,
with their wall time, and the totals per contract file. Run it serial with nothing else on the machine: under
``-n 2`` or beside other work, the machine's CPU is not one check's.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict

import pytest

from tests.benchmarks.machine_cpu import busy_seconds

SHOWN = 25


class _CpuByCheck:
    def __init__(self) -> None:
        self.cost: dict[str, tuple[float, float]] = {}  # node ID -> (busy core-s, wall s)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> object:
        busy, wall = busy_seconds(), time.perf_counter()
        try:
            return (yield)
        finally:
            self.cost[item.nodeid] = (busy_seconds() - busy, time.perf_counter() - wall)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.cost:
            return
        write = terminalreporter.write_line
        busy_total = sum(busy for busy, _ in self.cost.values())
        wall_total = sum(wall for _, wall in self.cost.values())
        ordered = sorted(busy for busy, _ in self.cost.values())
        write(
            f"cpu by check: {len(self.cost)} checks, {busy_total:.1f} busy core-s in {wall_total:.1f} s of checks; "
            f"a check: least {ordered[0]:.2f}, median {statistics.median(ordered):.2f}, most {ordered[-1]:.2f} core-s"
        )
        for node_id, (busy, wall) in sorted(self.cost.items(), key=lambda entry: -entry[1][0])[:SHOWN]:
            write(f"  {busy:6.2f} core-s {wall:6.2f} s  {node_id}")
        by_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        for node_id, (busy, wall) in self.cost.items():
            totals = by_file[node_id.split("::")[0]]
            totals[0] += busy
            totals[1] += wall
            totals[2] += 1
        write("cpu by contract file:")
        for path, (busy, wall, count) in sorted(by_file.items(), key=lambda entry: -entry[1][0]):
            write(f"  {busy:6.2f} core-s {wall:6.2f} s {int(count):3d} checks  {path}")


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(_CpuByCheck(), "driverkit-cpu-by-check")
