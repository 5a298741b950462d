"""How long the SDK toolset contract suite takes, with the quick and the thorough hypothesis profiles.

Target (issue "toolset contract suite"): the whole suite in at most 60 s on this machine with the default
(quick) profile, hypothesis included. The thorough run is printed beside it for reference; it has no target.
Both run side by side in one invocation so they share the machine's load of the moment.

    .venv/bin/python tests/benchmarks/bench_toolset_suite.py [--skip-thorough]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

TARGET_SECONDS = 60.0
ROOT = Path(__file__).resolve().parents[2]
SUITE = ["conformance/contracts/toolset", "-q", "-p", "no:randomly"]


def run_suite(extra: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *SUITE, *extra], capture_output=True, text=True, check=False, cwd=ROOT
    )
    elapsed = time.perf_counter() - started
    summary = [line.strip("= ") for line in done.stdout.splitlines() if re.search(r" in [\d.]+s", line)]
    return elapsed, summary[-1] if summary else f"exit {done.returncode}: {done.stderr[-300:]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--skip-thorough", action="store_true", help="time only the default profile")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    runs = [("quick", [])] + ([] if args.skip_thorough else [("thorough", ["--hypothesis-profile=thorough"])])
    for label, extra in runs:
        elapsed, counts = run_suite(extra)
        ratio = elapsed / TARGET_SECONDS
        print(f"{label:>8}: {elapsed:6.1f} s = {ratio:.2f}x the {TARGET_SECONDS:.0f} s target ({counts})")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
