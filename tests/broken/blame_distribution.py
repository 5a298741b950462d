"""How many clauses one defect fails: every single-defect broken driver certified on the whole browser suite.

    .venv/bin/python -m tests.broken.blame_distribution [--workers 2] [--only NAME ...]

Each driver of ``tests/conformance/contracts/browser/test_broken_drivers.py`` that has exactly one defect (its
DEFECTS and root-cause cases; not the variants the documents allow) is certified in a child run of every browser
check, as a driver author would run it, and its certificate read back. The table gives, per driver, the failed
clauses, the first entry of "What to fix first" and how many clauses it blocks; the closing lines give the
distribution of failed clauses per driver, the figure the docs report (Benchmarks, and "Reading the certificate").
It takes about 20 s a driver on 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.broken.certification import certify
from tests.conformance.contracts.browser.test_broken_drivers import DEFECTS, MODULE, NOT_PROVOKED, ROOT_CASES


def single_defect_drivers() -> list[str]:
    return list(dict.fromkeys([case.factory for case in DEFECTS] + [case.factory for case in ROOT_CASES]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers of each child run (default 2)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="certify only these broken drivers")
    args = parser.parse_args(argv)
    names = args.only or single_defect_drivers()
    unknown = sorted(set(names) - set(single_defect_drivers()) - {NOT_PROVOKED})
    if unknown:
        parser.error(f"not a single-defect broken driver: {', '.join(unknown)}")
    counts: dict[str, int] = {}
    started = time.monotonic()
    print(f"{'driver':44} {'failed':>6}  first to fix (blocks)  failed clauses")
    for name in names:
        with tempfile.TemporaryDirectory(prefix="driverkit-blame-") as folder:
            options = ("-n", str(args.workers)) if args.workers > 1 else ()
            run = certify(f"{MODULE}:{name}", Path(folder), options=options, evidence="off", timeout=900)
        if run.certificate is None:
            print(f"{name:44} {'-':>6}  no certificate: {run.tail(3)}")
            continue
        failed = run.with_status("failed")
        counts[name] = len(failed)
        causes = run.certificate.get("fix_first") or []
        first = f"{causes[0]['clause']} ({len(causes[0]['blocks'])})" if causes else "-"
        print(f"{name:44} {len(failed):>6}  {first:21} {' '.join(failed)}", flush=True)
    distribution = Counter(counts.values())
    print()
    print(f"{len(counts)} drivers in {time.monotonic() - started:.0f} s")
    print("failed clauses per driver: " + ", ".join(f"{n}: {distribution[n]}" for n in sorted(distribution)))
    if counts:
        worst = max(counts.values())
        print(f"worst: {worst} ({', '.join(name for name, n in counts.items() if n == worst)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
