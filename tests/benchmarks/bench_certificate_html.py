"""What certificate.html and its evidence cost: size of the page, and time added to a certification run.

Targets (issue 20): the HTML of a full certificate of a failing self-test driver stays under 5 MB, and writing it
(with the evidence gathered for its failing checks) adds at most 5% to certification time. Each driver is certified
once with every browser check; in that run the evidence hook is timed (``evidence_timer``), and rendering and
writing the page from the run's certificate is timed afterwards (median of 5). The ratio is
(evidence + page) / the run's time, both measured in the same run, so they share the machine's load of the moment.

    .venv/bin/python tests/benchmarks/bench_certificate_html.py [--driver tests.broken.drivers:click_at_offset ...]
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

from conformance import atomic
from conformance.html_report import render_certificate

REPOSITORY = Path(__file__).resolve().parents[2]
DRIVERS = ("tests.broken.drivers:click_at_offset", "tests.broken.drivers:ignores_cancellation")
SIZE_TARGET = 5_000_000
TIME_TARGET = 0.05


def measure(driver: str) -> None:
    with tempfile.TemporaryDirectory() as out:
        times = Path(out) / "evidence-times.json"
        certificate_dir = Path(out) / "certificate"
        command = [sys.executable, "-m", "pytest", f"--driver={driver}", f"--certificate={certificate_dir}"]
        command += ["-p", "no:cacheprovider", "-p", "tests.benchmarks.evidence_timer", "-q"]
        environment = {**os.environ, "DRIVERKIT_EVIDENCE_TIMES": str(times)}
        started = time.perf_counter()
        subprocess.run(command, cwd=REPOSITORY, env=environment, check=False, capture_output=True)
        run_seconds = time.perf_counter() - started
        spent = json.loads(times.read_text("utf-8"))
        certificate = json.loads((certificate_dir / "certificate.json").read_text("utf-8"))
        renders = []
        for _ in range(5):
            begun = time.perf_counter()
            atomic.write_text(Path(out) / "page.html", render_certificate(certificate))
            renders.append(time.perf_counter() - begun)
        page_seconds = statistics.median(renders)
        size = (certificate_dir / "certificate.html").stat().st_size
    added = spent["seconds"] + page_seconds
    failed = certificate["summary"]["failed"]
    print(f"{driver}: {failed} failed clauses, evidence for {spent['checks']} checks")
    print(f"  certification run   {run_seconds:8.1f} s")
    print(f"  evidence gathering  {spent['seconds']:8.3f} s")
    print(f"  page render+write   {page_seconds:8.3f} s")
    verdict = "ok" if added / run_seconds <= TIME_TARGET else "OVER TARGET"
    print(f"  added / run         {added / run_seconds:8.2%}  (target <= {TIME_TARGET:.0%}: {verdict})")
    size_verdict = "ok" if size < SIZE_TARGET else "OVER TARGET"
    print(f"  certificate.html    {size / 1e6:8.2f} MB (target < {SIZE_TARGET / 1e6:.0f} MB: {size_verdict})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--driver", action="append", help="a --driver factory (repeatable); default: two broken ones")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for driver in args.driver or DRIVERS:
        measure(driver)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
