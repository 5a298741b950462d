"""Full certification of the reference Node drivers vs the reference Python drivers, side by side in one run.

Target (issue 17, "Speed"): certifying the reference Node driver takes at most 1.3x the Python reference driver's
time. The two browser drivers do not implement the same members (the Node one a documented subset), so the
whole-run wall times are printed for information and the ratio is taken on what both really ran: each child run
writes a JUnit report, and the per-check times (setup, call and teardown: the driver factory, the fixture page and
the checks themselves) are summed over the checks that ran in both runs, skipped ("not implemented") ones left
out. The computer suite is compared the same way (both computer drivers implement all nine methods, so there the
two sets are the same). Runs of the two languages alternate, and their order flips every round, so both meet the
machine's load of the moment; the load average is printed before and after.

    .venv/bin/python tests/benchmarks/bench_node_certify.py [--rounds 2] [--suite browser|computer|both]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
TARGET = 1.3
DRIVERS = {
    "browser": (
        ("--driver", "reference.browser:sync_factory"),
        ("--driver", "node:reference/node/driver.mjs#makeDriver"),
    ),
    "computer": (
        ("--computer-driver", "reference.computer:sync_factory"),
        ("--computer-driver", "node:reference/node/computer.mjs#makeComputerDriver"),
    ),
}


@dataclass(frozen=True)
class Run:
    wall: float
    # check id -> seconds, for the checks that ran (not skipped)
    ran: dict[str, float]
    failed: int
    # the certificate's verdict and clause counts by status
    verdict: str
    clauses: dict[str, int]


def certify(option: str, driver: str) -> Run:
    with tempfile.TemporaryDirectory() as out:
        report = Path(out) / "junit.xml"
        command = [
            sys.executable,
            "-m",
            "pytest",
            f"{option}={driver}",
            f"--certificate={out}/certificate",
            f"--junitxml={report}",
            "-p",
            "no:cacheprovider",
            "-q",
        ]
        started = time.perf_counter()
        completed = subprocess.run(command, check=False, capture_output=True, text=True, cwd=REPOSITORY)
        wall = time.perf_counter() - started
        if not report.exists():
            raise SystemExit(f"{driver}: no JUnit report; the run ended with:\n{completed.stdout[-2000:]}")
        ran: dict[str, float] = {}
        failed = 0
        for case in ElementTree.parse(report).getroot().iter("testcase"):
            if case.find("skipped") is not None:
                continue
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
            ran[f"{case.get('classname')}::{case.get('name')}"] = float(case.get("time") or 0.0)
        certificate_path = Path(out) / "certificate" / "certificate.json"
        certificate = json.loads(certificate_path.read_text("utf-8")) if certificate_path.exists() else {}
        clauses = Counter(str(clause["status"]) for clause in certificate.get("clauses", []))
    return Run(wall, ran, failed, str(certificate.get("verdict", "no certificate")), dict(clauses))


def compare(suite: str, rounds: int) -> float:
    (python_option, python_driver), (node_option, node_driver) = DRIVERS[suite]
    python_runs: list[Run] = []
    node_runs: list[Run] = []
    for round_number in range(rounds):
        order = ["python", "node"] if round_number % 2 == 0 else ["node", "python"]
        for language in order:
            if language == "python":
                python_runs.append(certify(python_option, python_driver))
            else:
                node_runs.append(certify(node_option, node_driver))
            print(f"  {suite} round {round_number + 1}: {language} done, load {os.getloadavg()[0]:.1f}", flush=True)
    common = set.intersection(*(set(run.ran) for run in python_runs + node_runs))
    python_common = sum(sum(run.ran[check] for check in common) for run in python_runs) / rounds
    node_common = sum(sum(run.ran[check] for check in common) for run in node_runs) / rounds
    python_wall = sum(run.wall for run in python_runs) / rounds
    node_wall = sum(run.wall for run in node_runs) / rounds
    ratio = node_common / python_common if python_common else float("nan")
    counts = f"python {len(python_runs[0].ran)}, node {len(node_runs[0].ran)}, common {len(common)}"
    print(f"{suite}: checks run by {counts}")
    print(f"  failed checks: python {[run.failed for run in python_runs]}, node {[run.failed for run in node_runs]}")
    print(f"  python certificate: {python_runs[-1].verdict} {python_runs[-1].clauses}")
    print(f"  node certificate:   {node_runs[-1].verdict} {node_runs[-1].clauses}")
    print(f"  whole run (wall, mean of {rounds}): python {python_wall:7.1f} s   node {node_wall:7.1f} s")
    print(f"  common checks (summed):        python {python_common:7.1f} s   node {node_common:7.1f} s")
    verdict = "within" if ratio <= TARGET else "OVER"
    print(f"  node / python on common checks = {ratio:.2f} ({verdict} the {TARGET} target)")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--suite", choices=("browser", "computer", "both"), default="both")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}  ({os.cpu_count()} cores)")
    for suite in ("browser", "computer") if args.suite == "both" else (args.suite,):
        compare(suite, args.rounds)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
