"""The diagnostic observer is called synchronously and the runner never waits for work the observer starts.

spec/002 "Inspect usage and timing": use a synchronous observer; the runner does not wait for diagnostic work, so
an application schedules any asynchronous storage itself.

Each scenario runs twice in the same mode: once with an observer that only records, once with an observer that
records and then returns an awaitable (which notes whether anything ever awaited it, and would take
``SLOW_SECONDS`` if awaited) or starts slow background work. The second run must take no noticeably longer, must
have delivered every diagnostic before it returned, and must send and answer exactly what the first one did.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Generator
from typing import Any

import pytest

from conformance.assertions import expect, not_checked
from conformance.contracts.runner._scenario import CapturedRun, Mode, ScenarioRun, Setup, input_summary, load, modes

# What the observer's work would take if the runner waited for it, and the most the run may take beyond the
# recording run (far below SLOW_SECONDS, far above scheduling noise on a busy machine).
SLOW_SECONDS = 4.0
ALLOWED_DELAY = 2.0


class _Watched:
    """An awaitable that notes when something starts awaiting it, then takes ``SLOW_SECONDS``."""

    def __init__(self, awaited: list[str]) -> None:
        self.awaited = awaited

    def __await__(self) -> Generator[Any, None, None]:
        self.awaited.append("awaited")
        return asyncio.sleep(SLOW_SECONDS).__await__()


def _returning_awaitable(seen: list[Any], awaited: list[str]) -> Callable[[Any], object]:
    def observe(event: Any) -> object:
        seen.append(event)
        return _Watched(awaited)

    return observe


def _starting_slow_work(seen: list[Any], finished: list[str]) -> Callable[[Any], object]:
    def slow() -> None:
        time.sleep(SLOW_SECONDS)
        finished.append("finished")

    def observe(event: Any) -> object:
        seen.append(event)
        threading.Thread(target=slow, daemon=True).start()
        return None

    return observe


def _reference(mode: Mode) -> tuple[CapturedRun, float]:
    """The bundled one-function scenario with the recording observer only, and how long it took."""
    started = time.monotonic()
    outcome = ScenarioRun(load("one-function"), Setup(), mode).run()
    return outcome, time.monotonic() - started


@pytest.mark.clause("RN-DIAG-007")
@pytest.mark.parametrize("kind", ["awaitable", "slow-work"])
@pytest.mark.parametrize("mode", modes())
def test_observer_work_neither_delays_nor_changes_the_run(kind: str, mode: Mode) -> None:
    if mode.flavour == "node" and kind == "awaitable":
        not_checked("on the Node SDK: a Python awaitable cannot cross to Node as the observer's promise")
    reference, reference_seconds = _reference(mode)
    expect(reference.error is None, "RN-DIAG-007", f"the recording run failed: {reference.error!r}")
    seen: list[Any] = []
    started_work: list[str] = []
    observer = (
        _returning_awaitable(seen, started_work) if kind == "awaitable" else _starting_slow_work(seen, started_work)
    )
    harness = ScenarioRun(load("one-function"), Setup(), mode)
    started = time.monotonic()
    outcome = harness.run(on_diagnostic=observer)
    seconds = time.monotonic() - started
    seen_at_return = len(seen)
    expect(outcome.error is None, "RN-DIAG-007", f"the run with the {kind} observer failed: {outcome.error!r}")
    expect(
        seconds < reference_seconds + ALLOWED_DELAY,
        "RN-DIAG-007",
        f"the run with an observer whose {kind} takes {SLOW_SECONDS} s took {seconds:.2f} s "
        f"(the recording run {reference_seconds:.2f} s): the runner waited for the observer's work",
    )
    expect(
        started_work == [],
        "RN-DIAG-007",
        f"the runner waited for the observer's work ({started_work})",
    )
    expect(
        seen_at_return == len(reference.diagnostics) > 0,
        "RN-DIAG-007",
        f"the observer had seen {seen_at_return} diagnostics when the run returned; the recording run had "
        f"{len(reference.diagnostics)}: the observer is not called synchronously during the run",
    )
    expect(
        [input_summary(body.get("input", [])) for body in outcome.bodies]
        == [input_summary(body.get("input", [])) for body in reference.bodies],
        "RN-DIAG-007",
        f"the run sent other requests with the {kind} observer: {[input_summary(b['input']) for b in outcome.bodies]}",
    )
    expect(
        outcome.response.output_text == reference.response.output_text,
        "RN-DIAG-007",
        "the run returned another answer with the observer",
    )
