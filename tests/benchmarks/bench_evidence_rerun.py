"""What the evidence rerun costs: certification time with ``--evidence=rerun`` beside ``--evidence=first-run``.

A driver with no failing or unverified check is never rerun, so its time must not change (the difference is the
machine's noise); a broken driver pays one rerun (a fresh driver, the check again, one screenshot before each
step) per failed or unverified check. Each driver is certified with every browser check in both modes, the two
runs back to back and their order alternating between rounds, so they share the machine's load of the moment. The
rerun's own seconds are read from the certificate (each rerun records how long it took), and the HTML's size is
checked against the 5 MB limit.

    .venv/bin/python tests/benchmarks/bench_evidence_rerun.py [--driver MODULE:FACTORY ...] [--rounds N] [-k EXPR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[2]
DRIVERS = (
    "reference.browser:sync_factory",
    "tests.broken.drivers:click_at_offset",
    "tests.broken.drivers:text_reads_click_never_clicks",
)
MODES = ("first-run", "rerun")
SIZE_TARGET = 5_000_000


def certify(driver: str, mode: str, selection: str | None) -> tuple[float, dict[str, Any], int]:
    """One certification run: its wall time, its certificate, and the size of its certificate.html."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "pytest", f"--driver={driver}", f"--certificate={out}", f"--evidence={mode}"]
        command += ["-p", "no:cacheprovider", "-p", "no:randomly", "-q"]
        if selection:
            command += ["-k", selection]
        started = time.perf_counter()
        subprocess.run(command, cwd=REPOSITORY, check=False, capture_output=True)
        seconds = time.perf_counter() - started
        certificate = json.loads((Path(out) / "certificate.json").read_text("utf-8"))
        size = (Path(out) / "certificate.html").stat().st_size
    return seconds, certificate, size


def measure(driver: str, rounds: int, selection: str | None) -> None:
    times: dict[str, list[float]] = {mode: [] for mode in MODES}
    reruns: list[dict[str, Any]] = []
    sizes: list[int] = []
    last_rerun_run = 0.0
    for round_number in range(rounds):
        order = MODES if round_number % 2 == 0 else tuple(reversed(MODES))
        for mode in order:
            seconds, certificate, size = certify(driver, mode, selection)
            times[mode].append(seconds)
            if mode == "rerun":
                sizes.append(size)
                last_rerun_run = seconds
                reruns = [seen["rerun"] for seen in certificate["evidence"].values() if "rerun" in seen]
        summary = certificate["summary"]
    first, rerun = (statistics.median(times[mode]) for mode in MODES)
    rerun_seconds = sum(float(found.get("seconds") or 0.0) for found in reruns)
    repeated = sum(found.get("repeated") is True for found in reruns)
    print(f"{driver}: {summary.get('failed', 0)} failed, {summary.get('unverified', 0)} unverified clauses")
    print(f"  evidence checks     {len(reruns):8d}  (rerun: {repeated} repeated, {len(reruns) - repeated} not)")
    for mode, median in zip(MODES, (first, rerun), strict=True):
        each = ", ".join(f"{seconds:.1f}" for seconds in times[mode])
        print(f"  --evidence={mode:<10}{median:7.1f} s  (median of {rounds}: {each})")
    print(f"  rerun adds          {rerun / first - 1:+8.2%}  (medians of separate runs: load noise included)")
    # Timed inside the rerun-mode run itself, so the machine's load affects both sides alike.
    print(f"  reruns themselves   {rerun_seconds:8.1f} s = {rerun_seconds / last_rerun_run:.2%} of the last such run")
    verdict = "ok" if max(sizes) < SIZE_TARGET else "OVER TARGET"
    print(f"  certificate.html    {max(sizes) / 1e6:8.2f} MB (target < {SIZE_TARGET / 1e6:.0f} MB: {verdict})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--driver", action="append", help="a --driver factory (repeatable); default: three drivers")
    parser.add_argument("--rounds", type=int, default=1, help="runs per mode and driver (order alternates)")
    parser.add_argument("-k", dest="selection", help="only the checks this pytest -k expression selects")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for driver in args.driver or DRIVERS:
        measure(driver, args.rounds, args.selection)
        print(f"load average now: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
