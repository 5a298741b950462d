"""What the Node bridge adds per call: a no-op member through the bridge vs the same call on a Python driver.

Target (issue 17, "Speed"): the bridge adds at most 2 ms per call. Both drivers answer ``get_page_text`` at once
with a fixed string (tests/broken/node/plain.mjs and :class:`PlainDriver` below); each is called directly
(``call_direct``) and through its SDK's ``BrowserToolset`` (``call``: two ``state()`` reads around the member, so
three driver calls). The four series are interleaved round by round in one run, so they share the machine's load
of the moment; medians are printed with the added time and its ratio to the target. Optionally, ``--certify``
also times full certification of the reference Node and Python drivers side by side (the issue's 1.3x target).

    .venv/bin/python tests/benchmarks/bench_node_bridge.py [--calls 2000] [--certify]
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.harness.browser import BrowserHarness
from conformance.harness.environment import Environment
from conformance.harness.loop import HarnessLoop
from conformance.harness.subject import BrowserSubject
from conformance.node.drivers.harness import NodeBrowserHarness

TARGET_MS = 2.0
REPOSITORY = Path(__file__).resolve().parents[2]
PLAIN = f"node:{REPOSITORY / 'tests' / 'broken' / 'node' / 'plain.mjs'}#makeDriver"


class PlainDriver:
    """The Python twin of plain.mjs's state() and get_page_text."""

    def __init__(self, start_url: str) -> None:
        self.start_url = start_url

    def state(self) -> dict[str, Any]:
        return {"tabs": [{"id": "tab-1", "title": "Plain", "url": self.start_url, "active": True}]}

    def get_page_text(self, arguments: dict[str, Any]) -> str:
        return "plain text"


def make_plain(env: Environment) -> PlainDriver:
    return PlainDriver(env.start_url)


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def bench_calls(rounds: int) -> None:
    loop = HarnessLoop()
    python = BrowserHarness("bench:plain", make_plain, loop)
    node = NodeBrowserHarness(PLAIN, loop)
    series: dict[str, list[float]] = {key: [] for key in ("python direct", "node direct", "python SDK", "node SDK")}
    try:
        with python.subject(note=print) as on_python, node.subject(note=print) as on_node:
            subjects: dict[str, BrowserSubject] = {"python": on_python, "node": on_node}
            for _warm_up in range(50):
                for subject in subjects.values():
                    subject.call("get_page_text", tab_id=None)
            for _round in range(rounds):
                for language, subject in subjects.items():
                    series[f"{language} direct"].append(
                        timed(lambda subject=subject: subject.call_direct("get_page_text", {"tab_id": None}))
                    )
                    series[f"{language} SDK"].append(
                        timed(lambda subject=subject: subject.call("get_page_text", tab_id=None))
                    )
    finally:
        node.close()
        python.close()
        loop.close()
    medians = {key: statistics.median(values) for key, values in series.items()}
    for key, value in medians.items():
        print(f"{key:>14}: median {value:7.3f} ms per call ({rounds} calls)")
    for kind, driver_calls in (("direct", 1), ("SDK", 3)):
        added = medians[f"node {kind}"] - medians[f"python {kind}"]
        per_driver_call = added / driver_calls
        print(
            f"bridge adds {added:6.3f} ms per {kind} call ({driver_calls} driver call(s): {per_driver_call:.3f} ms "
            f"each) = {added / TARGET_MS:.2f}x the {TARGET_MS:g} ms target"
        )


def certify(driver: str) -> tuple[float, dict[str, int]]:
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "pytest", f"--driver={driver}", f"--certificate={out}", "-q"]
        started = time.perf_counter()
        subprocess.run(command, check=False, capture_output=True, cwd=REPOSITORY)
        elapsed = time.perf_counter() - started
        summary = json.loads((Path(out) / "certificate.json").read_text())["summary"]
    return elapsed, summary


def bench_certify() -> None:
    python_seconds, python_summary = certify("reference.browser:sync_factory")
    node_seconds, node_summary = certify("node:reference/node/driver.mjs#makeDriver")
    print(f"python reference: {python_seconds:6.1f} s, clauses {python_summary}")
    print(f"  node reference: {node_seconds:6.1f} s, clauses {node_summary}")
    print(f"node / python = {node_seconds / python_seconds:.2f} (target at most 1.3; the Node driver runs a subset)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--certify", action="store_true", help="also time both reference drivers' certification")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    bench_calls(args.calls)
    if args.certify:
        bench_certify()
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
