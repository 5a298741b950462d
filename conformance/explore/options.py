"""``--explore=N`` and ``--explore-seed=S``: how much exploration a certification does, and from which seed.

This module stays light (no hypothesis, no browser code): the plugin imports it to register the options in every
pytest run.

The default budget keeps certifying the reference browser driver, exploration included, under a minute on two
cores (bench: tests/benchmarks/bench_exploration.py). The default seed is derived from the ``--driver`` value, so
certifying the same driver twice explores the same sequences, and the seed a certificate prints replays them.
"""

from __future__ import annotations

import argparse
import zlib

import pytest

# Sequences explored by default, each of 12 steps on a fresh driver session: about 7 s with the reference driver on
# an idle machine (a step takes 70 ms on average, a dialogs page a third of a second). The suite's other checks take
# about 45 s, so this is what the minute allows with a margin for a busy machine.
DEFAULT_SEQUENCES = 8
# Sequences explored by default on a computer driver (conformance.explore.computer_machine), each of
# COMPUTER_STEPS_PER_SEQUENCE actions on a fresh driver: sized so exploration adds at most about 15 s to certifying
# the reference computer driver on two cores (bench: tests/benchmarks/bench_exploration.py --computer).
DEFAULT_COMPUTER_SEQUENCES = 10
COMPUTER_STEPS_PER_SEQUENCE = 10


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of sequences, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a number of sequences cannot be negative ({value})")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer seed, got {text!r}") from None
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"a seed is from 0 to {2**32 - 1} ({value})")
    return value


def add_options(group: pytest.OptionGroup) -> None:
    group.addoption(
        "--explore",
        metavar="N",
        type=_count,
        default=None,
        help=f"explore N random sequences of browser members (or computer actions), each on a fresh driver, against "
        f"a model of the session (default {DEFAULT_SEQUENCES} for a browser driver, {DEFAULT_COMPUTER_SEQUENCES} for "
        "a computer driver; 0 turns exploration off); a failure is shrunk to its shortest sequence",
    )
    group.addoption(
        "--explore-seed",
        metavar="S",
        type=_seed,
        default=None,
        help="the seed exploration draws its sequences from (default: derived from --driver or "
        "--computer-driver); a certificate's finding names the seed that replays it",
    )


def default_seed(driver: str) -> int:
    """The seed for a driver when none is given: the same for every run of that driver, short enough to type."""
    return zlib.crc32(driver.encode("utf-8")) % 100_000


def sequences(config: pytest.Config, default: int = DEFAULT_SEQUENCES) -> int:
    """``--explore``, else the default budget (the browser's unless told)."""
    given = config.getoption("--explore", None)
    return default if given is None else int(given)


def seed(config: pytest.Config, driver_option: str = "--driver") -> int:
    """``--explore-seed``, else the seed derived from the driver option's value (``--driver`` unless told)."""
    given = config.getoption("--explore-seed", None)
    return default_seed(str(config.getoption(driver_option, None) or "")) if given is None else int(given)
