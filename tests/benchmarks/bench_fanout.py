"""Certification time with 1 and 2 xdist workers, on a launched browser and over a Playwright server, and the
peak memory of each worker (its Python process plus the Playwright driver and browser it started).

What a user sizing a bigger machine or a cluster needs: how the time falls from one worker to two on this
machine, and what one more worker costs in memory. Memory is PSS (proportional set size, from
``/proc/PID/smaps_rollup``): Chromium's processes share much of their memory, and PSS splits shared pages
between them instead of counting them once per process. Over a Playwright server the browser belongs to the
server, not to a worker, so its peak is shown on its own. All four runs happen in one invocation, so they
share the machine's load of the moment.

    .venv/bin/python tests/benchmarks/bench_fanout.py [--driver module:factory] [--interval 0.25]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from conformance.harness.process_lifetime import children_by_parent
from reference.browser import WS_ENDPOINT_VARIABLE, serve


def _subtree(root: int, tree: dict[int, list[int]]) -> list[int]:
    found, pending = [], [root]
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(tree.get(pid, []))
    return found


def _pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _is_python(pid: int) -> bool:
    try:
        return "python" in Path(f"/proc/{pid}/comm").read_text()
    except OSError:
        return False


@dataclass
class MemoryWatch:
    """Samples, until stopped, the PSS of each xdist worker's process tree and of one other tree."""

    root: int
    other: int | None
    interval: float
    workers: dict[int, int] = field(default_factory=dict)  # worker PID -> peak KiB
    other_peak: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def _sample(self) -> None:
        tree = children_by_parent()
        # driverkit -> pytest controller -> one Python child per xdist worker
        controllers = [pid for pid in tree.get(self.root, []) if _is_python(pid)]
        for controller in controllers:
            for worker in (pid for pid in tree.get(controller, []) if _is_python(pid)):
                total = sum(_pss_kib(pid) for pid in _subtree(worker, tree))
                self.workers[worker] = max(self.workers.get(worker, 0), total)
        if self.other is not None:
            self.other_peak = max(self.other_peak, sum(_pss_kib(pid) for pid in _subtree(self.other, tree)))

    def run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def stop(self) -> None:
        self._stop.set()


@dataclass(frozen=True)
class Measurement:
    setup: str
    workers: int
    seconds: float
    verdict: str
    worker_peaks_mib: list[float]
    server_peak_mib: float | None


def certify(
    setup: str, workers: int, driver: str, server_pid: int | None, environ: dict[str, str], interval: float
) -> Measurement:
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "conformance.cli", "certify", "--driver", driver, "--out", out]
        command += ["--", "-q", "-n", str(workers)]
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environ)
        watch = MemoryWatch(process.pid, server_pid, interval)
        sampler = threading.Thread(target=watch.run, daemon=True)
        sampler.start()
        process.wait()
        elapsed = time.perf_counter() - started
        watch.stop()
        sampler.join()
        verdict = json.loads((Path(out) / "certificate.json").read_text())["verdict"]
    peaks = sorted((kib / 1024 for kib in watch.workers.values()), reverse=True)
    server = watch.other_peak / 1024 if server_pid is not None else None
    return Measurement(setup, workers, elapsed, verdict, peaks, server)


@contextmanager
def playwright_server() -> Iterator[tuple[str, int]]:
    with tempfile.TemporaryDirectory() as state:
        endpoint = serve.start("playwright-server", Path(state))
        try:
            yield endpoint, int((Path(state) / "playwright-server.pid").read_text())
        finally:
            serve.stop("playwright-server", Path(state))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--driver", default="reference.browser:sync_factory")
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between memory samples")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    local = {key: value for key, value in os.environ.items() if not key.startswith("DRIVERKIT_BROWSER_")}
    results: list[Measurement] = []
    for workers in (1, 2):
        results.append(certify("launched browser", workers, args.driver, None, local, args.interval))
    with playwright_server() as (endpoint, server_pid):
        remote = {**local, WS_ENDPOINT_VARIABLE: endpoint}
        for workers in (1, 2):
            results.append(certify("Playwright server", workers, args.driver, server_pid, remote, args.interval))
    print()
    print("| browser | workers | time | 2 vs 1 worker | verdict | peak PSS per worker | server peak PSS |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for result in results:
        single = next(item for item in results if item.setup == result.setup and item.workers == 1)
        ratio = f"{result.seconds / single.seconds:.2f}x" if result.workers > 1 else "1.00x"
        peaks = ", ".join(f"{peak:.0f} MiB" for peak in result.worker_peaks_mib) or "not sampled"
        server = f"{result.server_peak_mib:.0f} MiB" if result.server_peak_mib is not None else "-"
        print(
            f"| {result.setup} | {result.workers} | {result.seconds:.1f} s | {ratio} | {result.verdict} | {peaks} "
            f"| {server} |"
        )
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
