"""The terminal summary's time by phase (conformance.harness.phases) tells a slow factory from slow checks."""

from __future__ import annotations

import re

import pytest

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run]

# A driver whose factory takes 0.3 s and whose cleanup takes 0.2 s; the checks themselves take 0.1 s.
SLOW_FACTORY = """
import time


class Tiny:
    def state(self):
        return {"tabs": [{"id": "t1", "url": "about:blank", "title": "", "active": True}], "active_tab_id": "t1"}


def slow(env):
    time.sleep(0.3)
    yield Tiny()
    time.sleep(0.2)
"""

CHECKS = """
import time


def test_one(subject):
    time.sleep(0.1)


def test_two(subject):
    time.sleep(0.1)
"""


def test_factory_and_cleanup_time_is_shown_apart_from_the_checks(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(slowdrivers=SLOW_FACTORY, test_timed=CHECKS)
    pytester.syspathinsert()
    result = pytester.runpytest_subprocess("--driver=slowdrivers:slow", "test_timed.py", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    line = next(line for line in result.stdout.lines if line.startswith("time by phase:"))
    numbers = dict(re.findall(r"(kit setup|driver factory|checks|driver cleanup|session close) ([\d.]+) s", line))
    assert "over 2 checks" in line, line
    # Lower bounds only (the sleeps guarantee them); the factory's and cleanup's time must not count as the checks'.
    assert float(numbers["kit setup"]) >= 0.5, line  # the probe opens and closes one driver
    assert float(numbers["driver factory"]) >= 0.6, line
    assert float(numbers["driver cleanup"]) >= 0.4, line
    assert 0.2 <= float(numbers["checks"]) < float(numbers["driver factory"]), line
