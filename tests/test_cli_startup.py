"""``driverkit certify`` hands over to pytest without first importing what only other subcommands need."""

from __future__ import annotations

import subprocess
import sys

import pytest

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run]

_PROBE = """
import sys
from conformance import cli
cli.build_parser({command!r}).parse_args({arguments!r})
print(sorted(name for name in ("openai", "playwright") if name in sys.modules))
"""


def _imported(command: str, arguments: list[str]) -> str:
    probe = _PROBE.format(command=command, arguments=arguments)
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return completed.stdout.strip()


def test_certify_parses_without_importing_the_sdk_or_playwright() -> None:
    assert _imported("certify", ["certify", "--out", "x", "--", "-q"]) == "[]"


def test_replay_still_gets_its_arguments() -> None:
    # The replay module (and with it the SDK) is loaded for the subcommand that needs it.
    assert _imported("replay", ["replay", "cassette.jsonl", "--mode", "sync-plain"]) == "['openai']"
