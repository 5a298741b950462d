"""The docs' "JavaScript drivers" > "Certify a JavaScript browser driver": its driver and its commands run as
written, and certify.

The section's JavaScript block is written to ``drivers/my-driver.mjs`` in a fresh project folder whose
``node_modules`` is the kit's (the npm packages a driver author installs), and each ``pytest --driver=node:...``
command of the section runs there (the reference driver's in the clone), restricted with ``-k`` to a few checks
so the test stays short. Each must write a certificate that fails nothing.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from conformance.certificate_format import load as load_certificate
from tests.broken.certification import run_child
from tools import docs_text

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]

REPOSITORY = Path(__file__).resolve().parents[2]
SECTION = docs_text.section("javascript-drivers", "Certify a JavaScript browser driver")
BLOCKS = docs_text.tagged_blocks(SECTION)
DRIVER = next(code for language, code in BLOCKS if language == "js")
# The checks that reach what the page's driver implements (state, page text, keys, scrolling).
SELECTION = "check_state or test_page_text_is_reported_intact or test_scroll_moves_the_page_in_each_direction"


def _command(line: str) -> list[str]:
    # Cut the trailing comment only: the spec itself carries a "#".
    words = shlex.split(line, comments=False)
    return words[: words.index("#")] if "#" in words else words


def _commands() -> list[list[str]]:
    lines = [
        line
        for language, code in BLOCKS
        if language == "sh"
        for line in code.splitlines()
        if line.startswith("pytest --driver=node:")
    ]
    return [_command(line) for line in lines]


def test_the_section_shows_both_commands() -> None:
    specs = [words[1] for words in _commands()]
    assert specs == [
        "--driver=node:./drivers/my-driver.mjs#makeDriver",
        "--driver=node:reference/node/driver.mjs#makeDriver",
    ]


@pytest.mark.parametrize("words", _commands(), ids=lambda words: words[1].split("/")[-1])
def test_the_command_certifies_as_written(words: list[str], tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "drivers").mkdir(parents=True)
    (project / "drivers" / "my-driver.mjs").write_text(DRIVER, "utf-8")
    (project / "node_modules").symlink_to(REPOSITORY / "node_modules", target_is_directory=True)
    in_clone = "reference/node" in words[1]
    command = [sys.executable, "-m", *words, "-k", SELECTION, "-q", "-p", "no:cacheprovider"]
    command = [part.replace("--certificate=out/", f"--certificate={tmp_path / 'out'}") for part in command]
    completed = run_child(command, cwd=REPOSITORY if in_clone else project, timeout=600)
    output = completed.stdout + completed.stderr
    certificate = dict(load_certificate(tmp_path / "out" / "certificate.json"))
    failed = [clause["id"] for clause in certificate["clauses"] if clause["status"] == "failed"]
    assert not failed, output[-3000:]
    passed = [clause["id"] for clause in certificate["clauses"] if clause["status"] == "passed"]
    assert "BR-STATE-005" in passed and "BR-ACT-007" in passed, output[-3000:]
    assert completed.returncode == 0, output[-3000:]
