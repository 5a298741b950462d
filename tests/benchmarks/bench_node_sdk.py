"""The Node SDK suite (``driverkit certify --sdk=node``) beside the Python SDK suite (``--sdk``), in one run.

Prints each certification's wall time, the ratio Node/Python, the load average around them, each certificate's
clause counts, and then ``driverkit compare-sdks`` on the two certificates. No target: the Node run checks fewer
checks (those with no Node form are not checked) but pays a bridge round trip per SDK callback, so the ratio says
what the bridge costs at the size the suites have today.

    .venv/bin/python tests/benchmarks/bench_node_sdk.py [--out DIR] [-- extra pytest args, e.g. -n 2]
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

ROOT = Path(__file__).resolve().parents[2]


def certify(sdk: str, out: Path, extra: list[str]) -> tuple[float, dict[str, int], str]:
    command = [sys.executable, "-m", "conformance.cli", "certify", f"--sdk={sdk}", "--out", str(out), "--"]
    started = time.perf_counter()
    done = subprocess.run(
        [*command, "-q", "-p", "no:randomly", *extra], capture_output=True, text=True, check=False, cwd=ROOT
    )
    elapsed = time.perf_counter() - started
    file = out / "certificate.json"
    if not file.is_file():
        return elapsed, {}, f"no certificate (exit {done.returncode}): {done.stderr[-300:]}"
    certificate = json.loads(file.read_text("utf-8"))
    return elapsed, dict(certificate["summary"]), str(certificate["verdict"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=None, help="keep the two certificates here (python/, node/)")
    parser.add_argument("extra", nargs=argparse.REMAINDER, help="arguments after -- go to both pytest runs")
    args = parser.parse_args()
    extra = args.extra[1:] if args.extra[:1] == ["--"] else args.extra
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-node-sdk-"))
    print(f"load average before: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")
    results = {}
    for sdk in ("python", "node"):
        elapsed, counts, verdict = certify(sdk, out / sdk, extra)
        results[sdk] = elapsed
        print(f"{sdk:>6}: {elapsed:6.1f} s  verdict {verdict}  clauses {counts}")
        print(f"load average after {sdk}: {os.getloadavg()[0]:.2f}")
    print(f" ratio: node/python = {results['node'] / results['python']:.2f}")
    print()
    subprocess.run(
        [sys.executable, "-m", "conformance.cli", "compare-sdks", str(out / "python"), str(out / "node")],
        check=False,
        cwd=ROOT,
    )
    print(f"certificates: {out}")


if __name__ == "__main__":
    main()
