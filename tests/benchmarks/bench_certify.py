"""How long full certification of both reference browser drivers takes, serial and with ``-n 2``, by phase.

Target (issue 18): at most 30 s serial on an unloaded 2-core machine for each reference driver, and ``-n 2``
faster than serial. The four runs happen one after another in one invocation, so their figures share the
machine's load of the moment; the load average is printed with each, because on a shared machine it moves.
Each run's terminal summary breaks its time down (kit setup, driver factory, checks, driver cleanup, session
close; summed over workers under ``-n 2``), which this script repeats.

``--baseline DIR`` names another checkout of the kit (an older commit, say: ``git worktree add DIR COMMIT``); each
run then happens in that checkout and in this one, alternately, and the ratio new/old is printed, so a change is
judged against the code before it under the same load. ``--baseline-env NAME=VALUE`` (repeatable) sets variables
for the old side only, so one checkout can be compared with itself under another setting: ``--baseline-env
DRIVERKIT_CHROMIUM=/usr/bin/chromium`` runs the old side in the full Chromium's headless mode instead of the
headless shell.

Each run also reports the whole machine's CPU use while it ran (``/proc/stat``: every process counts, Chromium's
included, which the run's own rusage misses): the busy core-seconds, and what share of the cores they filled. The
busy core-seconds divided by the cores is the shortest wall time that much work could take here, which is what
bounds ``-n 2``: a serial run that already keeps the cores busy cannot be halved by a second worker.

    .venv/bin/python tests/benchmarks/bench_certify.py [--driver module:factory ...] [--runs serial,n2]
        [--baseline DIR] [--baseline-env NAME=VALUE ...]
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

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))  # a script run puts only this folder on the path

from tests.benchmarks.machine_cpu import cpu_times  # noqa: E402

TARGET_SECONDS = 30.0
DRIVERS = ("reference.browser:sync_factory", "reference.browser:async_factory")
RUNS = {"serial": ["-p", "no:randomly"], "n2": ["-n", "2"]}
_PHASES = re.compile(r"^time by phase: (.*)$", re.MULTILINE)


def _cpu_use(before: tuple[float, float] | None) -> str:
    after = cpu_times()
    if before is None or after is None:
        return "machine CPU use unknown (no /proc/stat)"
    busy, idle = after[0] - before[0], after[1] - before[1]
    cores = os.cpu_count() or 1
    return (
        f"machine CPU: {busy:.1f} busy core-s, {100 * busy / max(busy + idle, 1e-9):.0f}% of {cores} cores; "
        f"that work needs at least {busy / cores:.1f} s here"
    )


def certify(
    driver: str, extra: list[str], checkout: Path = HERE, environment: dict[str, str] | None = None
) -> tuple[float, dict[str, int], str]:
    """Wall time, clause summary and the phase line of one ``driverkit certify`` run of the kit in ``checkout``,
    with ``environment`` added to this process's variables."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "conformance.cli", "certify", "--driver", driver, "--out", out, "--", "-q"]
        started = time.perf_counter()
        # Run from the checkout, so ``-m conformance.cli`` and the checks it loads are that checkout's code.
        completed = subprocess.run(
            [*command, *extra],
            check=False,
            capture_output=True,
            text=True,
            cwd=checkout,
            env={**os.environ, **(environment or {})},
        )
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
    parser.add_argument("--baseline", type=Path, help="another checkout of the kit to run alternately, for old/new")
    parser.add_argument(
        "--baseline-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a variable set for the old side only (repeatable); without --baseline the old side is this checkout",
    )
    args = parser.parse_args()
    baseline_environment: dict[str, str] = {}
    for setting in args.baseline_env:
        name, equals, value = setting.partition("=")
        if not (name and equals):
            parser.error(f"--baseline-env: expected NAME=VALUE, not {setting!r}")
        baseline_environment[name] = value
    runs = [name.strip() for name in args.runs.split(",") if name.strip()]
    unknown = [name for name in runs if name not in RUNS]
    if unknown:
        parser.error(f"--runs: unknown {unknown}; expected some of {sorted(RUNS)}")
    if args.baseline is not None and not (args.baseline / "conformance" / "cli.py").is_file():
        parser.error(f"--baseline: {args.baseline} is not a checkout of the kit (no conformance/cli.py in it)")
    checkouts = {"new": HERE}
    if args.baseline is not None or baseline_environment:
        checkouts = {"old": (args.baseline or HERE).resolve(), "new": HERE}
    for driver in args.driver or DRIVERS:
        times: dict[tuple[str, str], float] = {}
        for name in runs:
            for side, checkout in checkouts.items():
                load, cpu = os.getloadavg()[0], cpu_times()
                environment = baseline_environment if side == "old" else {}
                elapsed, summary, phases = certify(driver, RUNS[name], checkout, environment)
                used = _cpu_use(cpu)
                times[(side, name)] = elapsed
                label = f"{driver} {name:>6}" + (f" {side}" if len(checkouts) > 1 else "")
                print(
                    f"{label}: {elapsed:6.1f} s = {elapsed / TARGET_SECONDS:.2f}x the {TARGET_SECONDS:.0f} s "
                    f"target (load average {load:.1f} before, {os.getloadavg()[0]:.1f} after); clauses {summary}"
                )
                print(f"{'':>{len(label) + 2}}{phases}")
                print(f"{'':>{len(label) + 2}}{used}")
            if ("old", name) in times:
                print(f"{driver} {name}: new/old {times[('new', name)] / times[('old', name)]:.2f}x")
        if ("new", "serial") in times and ("new", "n2") in times:
            print(f"{driver}: -n 2 takes {times[('new', 'n2')] / times[('new', 'serial')]:.2f}x the serial time")


if __name__ == "__main__":
    main()
