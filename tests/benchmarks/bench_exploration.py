"""Throughput of exploration (conformance.explore): sequences and steps per second on one driver.

Runs the exploration the certification check runs (the same budget, seed and fresh driver per sequence, through
the same harness) outside pytest, and prints how many sequences and steps it took, how fast, what share of the time
went to opening and closing drivers, and the mean time of each kind of step. Target (issue 30): certifying the
reference browser driver, exploration included, stays under 60 s on two cores; the default budget is sized by this.

    .venv/bin/python tests/benchmarks/bench_exploration.py [--driver reference.browser:sync_factory]
        [--sequences 8] [--seed S] [--rounds 2]

``--driver node:PATH#EXPORT`` explores a JavaScript driver through the Node harness.

``--computer-driver SPEC`` explores a computer driver instead, on a desktop of its own (Xvfb on this host, or
``--desktop docker``), with the computer check's budget, and prints the same figures. Its target (issue 30 part 2):
exploration adds at most about 15 s to certifying the reference computer driver. ``--certify`` measures that side by
side: it times ``driverkit certify`` of the driver with exploration off (``--explore=0``) and with the default budget,
alternating, ``--rounds`` times each. ``--seeds K`` instead explores with K seeds in a row (from ``--seed``) without
shrinking, and counts how many of them find a failure, by clause: how reliably the budget finds a driver's defect.

    .venv/bin/python tests/benchmarks/bench_exploration.py --computer-driver reference.computer:sync_factory \
        [--sequences 4] [--rounds 2] [--certify]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # a script run puts only this folder on the path

from conformance.explore.computer_machine import desktop_machine_factory
from conformance.explore.computer_session import desktop_sessions_from
from conformance.explore.computer_steps import replay_actions
from conformance.explore.options import (
    COMPUTER_STEPS_PER_SEQUENCE,
    DEFAULT_COMPUTER_SEQUENCES,
    DEFAULT_SEQUENCES,
    default_seed,
)
from conformance.explore.runner import Budget, Exploration, explore
from conformance.explore.session import sessions_from
from conformance.harness.browser import BrowserHarness
from conformance.harness.computer import ComputerHarness
from conformance.harness.computer_environment import desktop_environment
from conformance.harness.desktops.settings import DEFAULT_SCREEN
from conformance.harness.environment import DriverHints
from conformance.harness.factory import load_callable
from conformance.harness.loop import HarnessLoop
from conformance.node.drivers.driver import is_node_spec
from conformance.node.drivers.harness import NodeBrowserHarness

START_PAGE = "tabs-a.html"


def harness_for(spec: str, loop: HarnessLoop) -> BrowserHarness:
    root = Path(__file__).resolve().parents[2]
    if is_node_spec(spec):
        return NodeBrowserHarness(spec, loop, search=(root,))
    return BrowserHarness(spec, load_callable(spec, "--driver", search=[root]), loop)


def summary(found: Exploration) -> str:
    open_close = sum(run.seconds - sum(run.step_seconds) for run in found.runs)
    verdict = f"finding {found.finding.clause} in {len(found.finding.steps)} steps" if found.finding else "no finding"
    return (
        f"{found.sequences} sequences, {found.steps} steps in {found.seconds:.1f} s: "
        f"{found.sequences / found.seconds:.2f} sequences/s, {found.steps_per_second():.1f} steps/s "
        f"({open_close / found.seconds:.0%} of the time opening and closing drivers); {verdict}"
    )


def by_step(found: Exploration) -> str:
    times: dict[str, list[float]] = defaultdict(list)
    for run in found.runs:
        for step, seconds in zip(run.steps, run.step_seconds, strict=False):
            times[type(step).__name__].append(seconds)
    return ", ".join(
        f"{name} {statistics.mean(values) * 1000:.0f} ms (x{len(values)})" for name, values in sorted(times.items())
    )


def explore_desktop(spec: str, sequences: int, seed: int, rounds: int, desktop: str, seeds: int = 0) -> None:
    """Explore the computer driver ``spec`` ``rounds`` times on one desktop, printing each round's figures; or, with
    ``seeds``, once per seed without shrinking, counting the seeds that find a failure."""
    root = Path(__file__).resolve().parents[2]
    loop = HarnessLoop()
    harness = ComputerHarness(spec, load_callable(spec, "--computer-driver", search=[root]), loop, 60.0)
    try:
        with desktop_environment(desktop, DEFAULT_SCREEN) as environment:
            with harness.subject(environment, print):
                pass  # the factory's first driver, as the computer_subject fixture makes before exploring
            if seeds:
                found_by: dict[str, int] = defaultdict(int)
                for drawn in range(seed, seed + seeds):
                    # No shrinking: only whether the budget finds the failure at all.
                    budget = Budget(sequences, drawn, COMPUTER_STEPS_PER_SEQUENCE, 0, 0)
                    run = explore(
                        desktop_sessions_from(harness, environment, print),
                        budget,
                        machine=desktop_machine_factory,
                        replay_steps=replay_actions,
                    )
                    found_by[run.finding.clause if run.finding else "nothing"] += 1
                    print(f"seed {drawn}: {summary(run)}")
                print(f"{seeds} seeds of {sequences} sequences found: {dict(found_by)}")
                return
            for number in range(1, rounds + 1):
                found = explore(
                    desktop_sessions_from(harness, environment, print),
                    Budget(sequences, seed, steps=COMPUTER_STEPS_PER_SEQUENCE),
                    machine=desktop_machine_factory,
                    replay_steps=replay_actions,
                )
                print(f"round {number}: {summary(found)}")
                print(f"  mean step time: {by_step(found)}")
    finally:
        loop.close()


def certification_seconds(spec: str, explore_option: str, desktop: str) -> tuple[float, str]:
    """Wall time of ``driverkit certify --computer-driver=spec`` with ``--explore=...``, and its pytest summary."""
    script = Path(sys.executable).with_name("driverkit")
    with tempfile.TemporaryDirectory() as directory:
        command = [str(script), "certify", "--computer-driver", spec, "--out", directory]
        command += ["--", "-q", f"--desktop={desktop}", f"--explore={explore_option}"]
        started = time.perf_counter()
        completed = subprocess.run(command, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - started
    output = completed.stdout.splitlines()
    lines = [line for line in output if " in " in line and ("passed" in line or "failed" in line)]
    return seconds, lines[-1] if lines else f"exit {completed.returncode}"


def compare_certifications(spec: str, sequences: int, rounds: int, desktop: str) -> None:
    """Certification with exploration off and on, alternating so both see the same machine load."""
    off: list[float] = []
    on: list[float] = []
    for number in range(1, rounds + 1):
        for label, option, times in (("off", "0", off), (f"{sequences} sequences", str(sequences), on)):
            seconds, result = certification_seconds(spec, option, desktop)
            times.append(seconds)
            print(f"certify round {number}, exploration {label}: {seconds:.1f} s ({result})")
    added = [with_it - without for with_it, without in zip(on, off, strict=True)]
    print(
        f"certification: {statistics.median(off):.1f} s without exploration, {statistics.median(on):.1f} s with it; "
        f"added {statistics.median(added):.1f} s (median of {rounds}; load average now {os.getloadavg()[0]:.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--driver", default="reference.browser:sync_factory")
    parser.add_argument("--computer-driver", default=None, help="explore this computer driver instead")
    parser.add_argument("--desktop", default="local", choices=("local", "docker"))
    parser.add_argument("--certify", action="store_true", help="also time certification without and with exploration")
    parser.add_argument("--sequences", type=int, default=None, help="default: the certification default")
    parser.add_argument("--seed", type=int, default=None, help="default: the seed certification derives")
    parser.add_argument("--rounds", type=int, default=2, help="explorations to run (the first warms the browser)")
    parser.add_argument("--seeds", type=int, default=0, help="computer: count the seeds of K that find a failure")
    args = parser.parse_args()
    if args.computer_driver:
        sequences = DEFAULT_COMPUTER_SEQUENCES if args.sequences is None else args.sequences
        seed = default_seed(args.computer_driver) if args.seed is None else args.seed
        print(f"load average before: {os.getloadavg()[0]:.2f}; {args.computer_driver}, seed {seed}")
        explore_desktop(args.computer_driver, sequences, seed, args.rounds, args.desktop, args.seeds)
        if args.certify:
            compare_certifications(args.computer_driver, sequences, args.rounds, args.desktop)
        return
    args.sequences = DEFAULT_SEQUENCES if args.sequences is None else args.sequences
    seed = default_seed(args.driver) if args.seed is None else args.seed
    print(f"load average before: {os.getloadavg()[0]:.2f}; {args.driver}, seed {seed}")
    loop = HarnessLoop()
    harness = harness_for(args.driver, loop)
    try:
        harness.probe()
        for number in range(1, args.rounds + 1):
            found = explore(sessions_from(harness, START_PAGE, DriverHints(), None), Budget(args.sequences, seed))
            print(f"round {number}: {summary(found)}")
            print(f"  mean step time: {by_step(found)}")
    finally:
        for problem in harness.close():
            print(f"closing: {problem}")
        loop.close()


if __name__ == "__main__":
    main()
