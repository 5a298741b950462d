"""Execution service latency, sandboxed (the product) beside the old unsandboxed runtime, in one run.

Targets: a warm call (a session whose runtime is already up) within 2x of 0.8 ms, and a first call (a new
session: sandbox, interpreter, Pillow and PyAutoGUI start, then the call) within 2x of 370 ms. Both are
measured through the HTTP client, as a caller sees them. The unsandboxed side (tests/execution/_unsandboxed.py)
exists only for this comparison; it is never the service's default. Rounds alternate between the two services
and medians are printed, so load from other processes falls on both sides.

The JavaScript runtime (Node, Playwright and a headless Chromium per session) is measured in the same sandboxed
service and printed beside the Python runtime: first call (the browser starts with the session) and warm calls
(a plain statement, and one round trip to the page). It has no target of its own yet.

    .venv/bin/python tests/benchmarks/bench_execution.py [--warm 300] [--first 12] [--js-first 6]
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


def _timed(endpoint: str, token: str, session: str, code: str, language: str = "python") -> float:
    started = time.perf_counter()
    items = execute_in_sandbox(code, session, endpoint, approve=_approve, token=token, language=language)
    elapsed = (time.perf_counter() - started) * 1000
    if any(item["type"] == "input_text" and "Error" in item["text"] for item in items):
        raise RuntimeError(f"the {language} benchmark call failed: {items}")
    return elapsed


def _languages(service: ExecutionService, token: str, first_rounds: int, warm_rounds: int) -> list[str]:
    """First and warm calls of both runtimes in one sandboxed service, rounds alternating between them."""
    calls = {
        "python": ("log(1)", "x = 0", "x += 1"),
        "javascript": ("console.log(1)", "globalThis.x = 0", "x += 1"),
    }
    first: dict[str, list[float]] = {name: [] for name in calls}
    warm: dict[str, list[float]] = {name: [] for name in calls}
    for round_ in range(first_rounds):
        for language, (code, _, _) in calls.items():
            session = f"lang-first-{language}-{round_}"
            first[language].append(_timed(service.endpoint, token, session, code, language))
            service.pool.end(session)
    for language, (_, setup, _) in calls.items():
        _timed(service.endpoint, token, f"lang-warm-{language}", setup, language)
    page: list[float] = []
    for _ in range(warm_rounds):
        for language, (_, _, step) in calls.items():
            warm[language].append(_timed(service.endpoint, token, f"lang-warm-{language}", step, language))
        page.append(_timed(service.endpoint, token, "lang-warm-javascript", "await page.title()", "javascript"))
    lines = [
        f"\nsandboxed, by language ({first_rounds} first calls, {warm_rounds} warm calls each; medians)",
        f"{'':22} {'python':>10} {'javascript':>11} {'ratio':>7}",
    ]
    for label, samples in (("first call", first), ("warm call", warm)):
        py, js = statistics.median(samples["python"]), statistics.median(samples["javascript"])
        lines.append(f"{label:22} {py:8.2f}ms {js:9.2f}ms {js / py:6.2f}x")
    lines.append(f"{'warm call, page.title':22} {'':>10} {statistics.median(page):9.2f}ms")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--warm", type=int, default=300, help="warm calls per side (default 300)")
    parser.add_argument("--first", type=int, default=12, help="first calls (new sessions) per side (default 12)")
    parser.add_argument("--js-first", type=int, default=6, help="first calls per language (default 6)")
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
        for session in ("warm",):
            sandboxed.pool.end(session)
        by_language = _languages(sandboxed, token, options.js_first, options.warm)
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
    print("\n".join(by_language))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
