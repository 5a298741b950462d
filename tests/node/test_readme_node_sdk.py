"""The docs' "SDK maintainers" > "Check the Node SDK": its commands run as written, and its deviation table is the
baseline's.

The two ``driverkit certify`` lines run in a fresh folder with one check file appended after ``--`` (the whole
suites take minutes; the commands' own words are kept), then ``driverkit compare-sdks`` runs on what they wrote,
exactly as the page shows it, and must print the comparison and exit 0; so must ``driverkit deviations --node``.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tools import docs_text

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]

REPOSITORY = Path(__file__).resolve().parents[2]
SECTION = docs_text.section("sdk-maintainers", "Check the Node SDK")
COMMANDS = [
    shlex.split(line, comments=True)
    for language, code in docs_text.tagged_blocks(SECTION)
    if language == "sh"
    for line in code.splitlines()
    if line.startswith("driverkit ")
]
ONE_CHECK_FILE = str(REPOSITORY / "conformance" / "contracts" / "runner" / "check_loop.py")
BASELINE = REPOSITORY / "conformance" / "known_deviations" / "node" / "7.55.0.toml"


def _driverkit(words: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "conformance.cli", *words[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_section_shows_its_commands() -> None:
    assert [words[:2] for words in COMMANDS] == [
        ["driverkit", "certify"],
        ["driverkit", "certify"],
        ["driverkit", "compare-sdks"],
        ["driverkit", "deviations"],
    ]
    assert "--sdk=node" in COMMANDS[1]


@pytest.mark.skipif(not (REPOSITORY / "node_modules" / "openai").is_dir(), reason="needs the kit's npm install")
def test_the_commands_run_as_written(tmp_path: Path) -> None:
    for words in COMMANDS[:2]:
        done = _driverkit([*words, "--", "-q", "-p", "no:randomly", ONE_CHECK_FILE], tmp_path)
        out = tmp_path / words[words.index("--out") + 1]
        assert (out / "certificate.json").is_file(), done.stdout[-2000:] + done.stderr[-2000:]
    compared = _driverkit(COMMANDS[2], tmp_path)
    assert compared.returncode == 0, compared.stderr
    assert compared.stdout.startswith("# Python SDK vs Node SDK\n")
    assert "clause(s) checked on both" in compared.stdout
    assert "Checked on the Node SDK only" in compared.stdout
    listed = _driverkit(COMMANDS[3], tmp_path)
    assert listed.returncode == 0 and listed.stdout.startswith("openai (npm) "), listed.stderr


def test_the_deviation_table_lists_the_node_baseline() -> None:
    recorded = {entry["id"]: entry["clause"] for entry in tomllib.loads(BASELINE.read_text("utf-8"))["deviation"]}
    listed = dict(re.findall(r"^\| (DEV-NODE-[A-Z]+-\d+) \| ([A-Z]+-[A-Z]+-\d+) \|", SECTION, flags=re.M))
    assert listed == recorded
