"""Execution service latency, sandboxed (the product) beside the old unsandboxed runtime, in one run.

Targets: a warm call (a session whose runtime is already up) within 2x of 0.8 ms, and a first call (a new
session: sandbox, interpreter, Pillow and PyAutoGUI start, then the call) within 2x of 370 ms. Both are
measured through the HTTP client, as a caller sees them. The unsandboxed side (tests/execution/_unsandboxed.py)
exists only for this comparison; it is never the service's default. Rounds alternate between the two services
and medians are printed, so load from other processes falls on both sides.

    .venv/bin/python tests/benchmarks/bench_execution.py [--warm 300] [--first 12]
"""

from __future__ import annotations

import argparse
import secrets
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # for tests.execution._unsandboxed (a script run puts only this folder on the path)

from reference.execution import ExecutionLimits, ExecutionService, execute_in_sandbox  # noqa: E402
from tests.execution._unsandboxed import UnsandboxedLauncher  # noqa: E402
from tests.execution._xvfb import private_display  # noqa: E402

WARM_TARGET_MS = 2 * 0.8
FIRST_TARGET_MS = 2 * 370.0


def _approve(code: str) -> bool:
    return True


def _timed(endpoint: str, token: str, session: str, code: str) -> float:
    started = time.perf_counter()
    execute_in_sandbox(code, session, endpoint, approve=_approve, token=token)
    return (time.perf_counter() - started) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--warm", type=int, default=300, help="warm calls per side (default 300)")
    parser.add_argument("--first", type=int, default=12, help="first calls (new sessions) per side (default 12)")
    options = parser.parse_args()
    if shutil.which("Xvfb") is None:
        print("bench_execution: Xvfb is missing (apt-get install xvfb)", file=sys.stderr)
        return 2
    token = secrets.token_urlsafe(24)
    limits = ExecutionLimits(max_sessions=4)
    unconfined = UnsandboxedLauncher(limits)
    with (
        private_display() as display,
        ExecutionService(token, display=display, limits=limits) as sandboxed,
        ExecutionService(token, display=display, limits=limits, launcher=unconfined) as plain,
    ):
        services = {"sandboxed": sandboxed, "unsandboxed": plain}
        print(f"sandbox: {sandboxed.launcher.description}")
        first: dict[str, list[float]] = {name: [] for name in services}
        warm: dict[str, list[float]] = {name: [] for name in services}
        for round_ in range(options.first):
            for name, service in services.items():
                session = f"first-{round_}"
                first[name].append(_timed(service.endpoint, token, session, "log(1)"))
                service.pool.end(session)
        for service in services.values():
            _timed(service.endpoint, token, "warm", "x = 0")
        for _ in range(options.warm):
            for name, service in services.items():
                warm[name].append(_timed(service.endpoint, token, "warm", "x += 1"))
    shutil.rmtree(unconfined.scratch_root, ignore_errors=True)
    rows = [("warm call", warm, WARM_TARGET_MS), ("first call", first, FIRST_TARGET_MS)]
    print(f"{'':12} {'sandboxed':>11} {'unsandboxed':>12} {'ratio':>7} {'target':>10}  verdict")
    failed = False
    for label, samples, target in rows:
        boxed, plain_ms = statistics.median(samples["sandboxed"]), statistics.median(samples["unsandboxed"])
        met = boxed <= target
        failed |= not met
        print(
            f"{label:12} {boxed:9.2f}ms {plain_ms:10.2f}ms {boxed / plain_ms:6.2f}x {target:8.1f}ms  "
            f"{'met' if met else 'NOT MET'}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
