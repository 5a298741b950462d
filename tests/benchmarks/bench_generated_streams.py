"""Generated streams per second, per mode: what one unit of the fuzz check's budget costs.

The fuzz check (``conformance/contracts/runner/check_fuzz_generated_streams.py``) runs every generated cassette
in every mode and judges each run. This bench draws a fixed set of cassettes once (generation timed apart), then
for each mode runs and judges all of them, several rounds, and prints the best round's rate per mode: wall-clock
streams per second and CPU streams per second (the CPU figure is the one to compare on a shared machine, where
wall time follows the other processes' load). The last line is the whole matrix: cassettes judged in every mode
(with the cross-mode comparison) per second, the rate the fuzz check's budget is spent at.

    .venv/bin/python tests/benchmarks/bench_generated_streams.py [--cassettes 40] [--rounds 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from hypothesis import HealthCheck, given, seed, settings

from conformance.cassettes import Cassette
from conformance.contracts.runner._fuzz import judge
from conformance.contracts.runner._generated import observe
from conformance.rig import ALL_MODES, Mode
from conformance.streams import known
from conformance.streams.facts import Facts
from conformance.streams.properties import check_run
from conformance.streams.strategies import cassettes as generated


def draw(count: int, chosen_seed: int) -> list[Cassette]:
    drawn: list[Cassette] = []

    @seed(chosen_seed)
    @settings(max_examples=count, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(generated())
    def keep(cassette: Cassette) -> None:
        drawn.append(cassette)

    keep()
    return drawn[:count]


def best(rounds: int, work: Callable[[], None]) -> tuple[float, float]:
    """The best (wall, CPU) seconds of ``rounds`` runs of ``work``."""
    walls, cpus = [], []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cassettes", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    started = time.process_time()
    drawn = draw(options.cassettes, options.seed)
    generation = time.process_time() - started
    events = sum(len(exchange.response.events or ()) for cassette in drawn for exchange in cassette.exchanges)
    print(f"{len(drawn)} cassettes, {events} events, generated in {generation:.2f} s CPU")
    facts = [Facts.of(cassette) for cassette in drawn]

    def one_mode(mode: Mode) -> Callable[[], None]:
        def work() -> None:
            for cassette, known_facts in zip(drawn, facts, strict=True):
                check_run(known_facts, observe(cassette, mode))

        return work

    print(f"{'mode':<20} {'streams/s (wall)':>17} {'streams/s (CPU)':>16}")
    for mode in ALL_MODES:
        wall, cpu = best(options.rounds, one_mode(mode))
        print(f"{mode.id:<20} {len(drawn) / wall:>17.1f} {len(drawn) / cpu:>16.1f}")
    recognizers = known.active()

    def every_mode() -> None:
        for cassette in drawn:
            judge(cassette, ALL_MODES, recognizers)

    wall, cpu = best(1, every_mode)
    print(f"{'all 12 modes':<20} {len(drawn) / wall:>17.2f} {len(drawn) / cpu:>16.2f}")


if __name__ == "__main__":
    main()
