"""How long full certification of both reference browser drivers takes, serial and with ``-n 2``, by phase.

Target (issue 18): at most 30 s serial on an unloaded 2-core machine for each reference driver, and ``-n 2``
faster than serial. The four runs happen one after another in one invocation, so their figures share the
machine's load of the moment; the load average is printed with each, because on a shared machine it moves.
Each run's terminal summary breaks its time down (kit setup, driver factory, checks, driver cleanup, session
close; summed over workers under ``-n 2``), which this script repeats.

    .venv/bin/python tests/benchmarks/bench_certify.py [--driver module:factory ...] [--runs serial,n2]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 30.0
DRIVERS = ("reference.browser:sync_factory", "reference.browser:async_factory")
RUNS = {"serial": ["-p", "no:randomly"], "n2": ["-n", "2"]}
_PHASES = re.compile(r"^time by phase: (.*)$", re.MULTILINE)


def certify(driver: str, extra: list[str]) -> tuple[float, dict[str, int], str]:
    """Wall time, clause summary and the phase line of one ``driverkit certify`` run."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "conformance.cli", "certify", "--driver", driver, "--out", out, "--", "-q"]
        started = time.perf_counter()
        completed = subprocess.run([*command, *extra], check=False, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        certificate = Path(out) / "certificate.json"
        if not certificate.exists():
            raise SystemExit(f"{driver} {' '.join(extra)} wrote no certificate:\n{completed.stdout[-2000:]}")
        summary = json.loads(certificate.read_text())["summary"]
    phases = _PHASES.search(completed.stdout)
    return elapsed, summary, phases.group(1) if phases else "(no phase line in the output)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--driver", action="append", help="a factory to certify (repeatable); both references if none")
    parser.add_argument("--runs", default="serial,n2", help="comma-separated: serial, n2")
    args = parser.parse_args()
    runs = [name.strip() for name in args.runs.split(",") if name.strip()]
    unknown = [name for name in runs if name not in RUNS]
    if unknown:
        parser.error(f"--runs: unknown {unknown}; expected some of {sorted(RUNS)}")
    for driver in args.driver or DRIVERS:
        times: dict[str, float] = {}
        for name in runs:
            load = os.getloadavg()[0]
            elapsed, summary, phases = certify(driver, RUNS[name])
            times[name] = elapsed
            print(
                f"{driver} {name:>6}: {elapsed:6.1f} s = {elapsed / TARGET_SECONDS:.2f}x the {TARGET_SECONDS:.0f} s "
                f"target (load average {load:.1f} before, {os.getloadavg()[0]:.1f} after); clauses {summary}"
            )
            print(f"{'':>{len(driver) + 9}}{phases}")
        if "serial" in times and "n2" in times:
            print(f"{driver}: -n 2 takes {times['n2'] / times['serial']:.2f}x the serial time")


if __name__ == "__main__":
    main()
