"""Throughput of exploration (conformance.explore): sequences and steps per second on one driver.

Runs the exploration the certification check runs (the same budget, seed and fresh driver per sequence, through
the same harness) outside pytest, and prints how many sequences and steps it took, how fast, what share of the time
went to opening and closing drivers, and the mean time of each kind of step. Target (issue 30): certifying the
reference browser driver, exploration included, stays under 60 s on two cores; the default budget is sized by this.

    .venv/bin/python tests/benchmarks/bench_exploration.py [--driver reference.browser:sync_factory]
        [--sequences 8] [--seed S] [--rounds 2]

``--driver node:PATH#EXPORT`` explores a JavaScript driver through the Node harness.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # a script run puts only this folder on the path

from conformance.explore.options import DEFAULT_SEQUENCES, default_seed
from conformance.explore.runner import Budget, Exploration, explore
from conformance.explore.session import sessions_from
from conformance.harness.browser import BrowserHarness
from conformance.harness.environment import DriverHints
from conformance.harness.factory import load_callable
from conformance.harness.loop import HarnessLoop
from conformance.harness.node.driver import is_node_spec
from conformance.harness.node.harness import NodeBrowserHarness

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--driver", default="reference.browser:sync_factory")
    parser.add_argument("--sequences", type=int, default=DEFAULT_SEQUENCES)
    parser.add_argument("--seed", type=int, default=None, help="default: the seed certification derives")
    parser.add_argument("--rounds", type=int, default=2, help="explorations to run (the first warms the browser)")
    args = parser.parse_args()
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
