"""What the installed kit costs a stranger's pytest run that does not certify anything.

A project with one trivial test is run with the kit's plugin (loaded by the ``pytest11`` entry point, dormant) and
with ``-p no:driverkit`` (the kit not loaded at all), alternately, in the same venv; the script prints the median
wall time and peak memory (max RSS of the child) of each and their ratios. Target: at most 1.05x.

    .venv/bin/python -m tests.benchmarks.bench_dormant_start [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# pytest as its console script runs it, then the process's own peak memory (KiB) on the last line.
_CHILD = (
    "import resource, sys, pytest\n"
    "code = pytest.main(sys.argv[1:])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    "sys.exit(code)\n"
)


def _run(folder: Path, extra: list[str]) -> tuple[float, float]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, "-q", "-p", "no:cacheprovider", *extra],
        cwd=folder,
        check=True,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    return elapsed, int(done.stdout.strip().splitlines()[-1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "test_host.py").write_text("def test_one():\n    assert 1 + 1 == 2\n", encoding="utf-8")
        times: dict[str, list[float]] = {"kit installed": [], "-p no:driverkit": []}
        memory: dict[str, list[float]] = {label: [] for label in times}
        _run(folder, [])  # warm the page cache and bytecode once
        for _ in range(args.rounds):
            for label, extra in (("kit installed", []), ("-p no:driverkit", ["-p", "no:driverkit"])):
                elapsed, rss = _run(folder, extra)
                times[label].append(elapsed)
                memory[label].append(rss)
    with_kit, without = (statistics.median(times[label]) for label in times)
    peak_with, peak_without = (statistics.median(memory[label]) for label in memory)
    print(f"host project, one trivial test, median of {args.rounds} alternating runs:")
    for label in times:
        print(f"  {label:16} {statistics.median(times[label]):.3f} s, {statistics.median(memory[label]):.1f} MiB")
    print(
        f"  time ratio {with_kit / without:.3f}x (target at most 1.05x), memory ratio {peak_with / peak_without:.3f}x"
    )


if __name__ == "__main__":
    main()
