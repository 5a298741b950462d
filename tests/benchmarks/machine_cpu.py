"""The whole machine's CPU time from ``/proc/stat``: every process counts, Chromium's included, which a run's own
rusage misses. Shared by the benchmarks that judge certification's CPU use."""

from __future__ import annotations

import os
from pathlib import Path


def cpu_times() -> tuple[float, float] | None:
    """(busy, idle) core-seconds of the whole machine since boot, or None where there is no /proc/stat."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return None
    ticks = [int(value) for value in fields]
    idle = ticks[3] + ticks[4]  # idle, iowait
    hertz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks[:8]) - idle) / hertz, idle / hertz


def busy_seconds() -> float:
    """The machine's busy core-seconds since boot; an error names what is missing where there is no /proc/stat."""
    times = cpu_times()
    if times is None:
        raise RuntimeError("this benchmark reads the machine's CPU time from /proc/stat, which this system lacks")
    return times[0]
