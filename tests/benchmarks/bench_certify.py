"""How long full certification of the reference sync driver takes, serial and with ``-n 2``.

Target (issue "Certify a browser driver"): at most 90 s on a 2-core machine with every member selected. Both
runs happen side by side in one invocation, so the two figures share the machine's load of the moment.

    .venv/bin/python tests/benchmarks/bench_certify.py [--driver module:factory]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SECONDS = 90.0


def certify(driver: str, extra: list[str]) -> tuple[float, dict[str, int]]:
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "conformance.cli", "certify", "--driver", driver, "--out", out, "--", "-q"]
        started = time.perf_counter()
        subprocess.run([*command, *extra], check=False, capture_output=True)
        elapsed = time.perf_counter() - started
        summary = json.loads((Path(out) / "certificate.json").read_text())["summary"]
    return elapsed, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--driver", default="reference.browser:sync_factory")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for label, extra in (("serial", []), ("-n 2", ["-n", "2"])):
        elapsed, summary = certify(args.driver, extra)
        print(
            f"{label:>6}: {elapsed:6.1f} s = {elapsed / TARGET_SECONDS:.2f}x the {TARGET_SECONDS:.0f} s target; "
            f"clauses {summary}"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
