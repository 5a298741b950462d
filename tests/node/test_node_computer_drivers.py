"""``--computer-driver=node:...``: the computer suite certifies JavaScript computer drivers through the Node SDK.

The reference Node computer driver (reference/node/computer.mjs), certified with the docs' command, must
conform with no clause failed or left unreached; each factory of tests/broken/node/broken_computer.mjs (that
driver with exactly one defect) must fail exactly its clause in a child run restricted with ``-k`` to the checks
that exercise the defect. A Node older than the kit needs is a usage error that names the fix.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.broken.certification import REPOSITORY, Certification, certify, run_child
from tests.desktops import needs_x
from tools import docs_text

pytestmark = [needs_x, pytest.mark.desktop, pytest.mark.child_run, pytest.mark.node]

REFERENCE = "node:reference/node/computer.mjs#makeComputerDriver"
BROKEN = "node:tests/broken/node/broken_computer.mjs"


def certify_computer(driver: str, directory: Path, selection: str | None = None) -> Certification:
    """Certify the computer ``driver`` in a child pytest, as a driver author runs it, and read its certificate."""
    return certify(driver, directory, selection=selection, option="--computer-driver", evidence=None)


def test_the_readme_command_certifies_the_reference_node_computer_driver(tmp_path: Path) -> None:
    section = docs_text.section("javascript-drivers", "JavaScript computer drivers")
    command = next(line for line in section.splitlines() if line.startswith("pytest --computer-driver=node:"))
    assert command.split()[1] == f"--computer-driver={REFERENCE}", command
    run = certify_computer(REFERENCE, tmp_path)
    run.expect_conforms("the reference Node computer driver")
    assert "openai (npm)" in json.dumps(run.certificate), run.tail()


@dataclass(frozen=True)
class Case:
    factory: str
    checks: str
    expected: tuple[str, ...]


DEFECTS = (
    Case("waitReturnsAtOnce", "wait_pauses", ("CO-WAIT-001",)),
    Case("unknownKeysSkipped", "unknown_key_name", ("CO-UNSUP-001",)),
    Case(
        "typeIgnoresCancellation",
        "typing_stops_when_cancelled or already_cancelled_sends_nothing",
        ("CO-CANCEL-001", "CO-CANCEL-002"),
    ),
    Case("withoutDrag", "all_nine_methods or toolset_accepts", ("CO-SHAPE-001", "CO-SHAPE-002")),
    Case("clicksOffTarget", "click_lands_once", ("CO-CLICK-001",)),
)


@pytest.mark.parametrize("case", DEFECTS, ids=lambda case: case.factory)
def test_the_suite_blames_the_broken_clause_of_a_javascript_computer_driver(case: Case, tmp_path: Path) -> None:
    run = certify_computer(f"{BROKEN}#{case.factory}", tmp_path, case.checks)
    assert run.certificate is not None, f"the run wrote no certificate:\n{run.tail()}"
    failed = run.with_status("failed")
    assert failed == sorted(case.expected), f"{case.factory}: failed {failed}\n{run.reasons(failed)}\n{run.tail(15)}"


def test_a_module_without_the_factory_is_a_usage_error(tmp_path: Path) -> None:
    run = certify_computer(f"{BROKEN}#noSuchFactory", tmp_path)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.tail()
    assert "exports no function noSuchFactory" in run.output, run.tail()


@pytest.mark.parametrize("option", ["--driver", "--computer-driver"])
def test_a_node_too_old_is_a_usage_error_naming_the_fix(
    option: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = tmp_path / "node"
    old.write_text("#!/bin/sh\necho v16.20.2\n")
    old.chmod(0o755)
    monkeypatch.setenv("DRIVERKIT_NODE", str(old))
    spec = "node:tests/broken/node/plain.mjs#makeDriver" if option == "--driver" else REFERENCE
    completed = run_child(
        [sys.executable, "-m", "pytest", f"{option}={spec}", "-p", "no:cacheprovider", "-q"],
        cwd=REPOSITORY,
        timeout=120.0,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == pytest.ExitCode.USAGE_ERROR, output[-2000:]
    assert "is Node v16.20.2; the kit needs Node 18 or newer" in output, output[-2000:]
    assert "apt-get install -y nodejs npm" in output, output[-2000:]
