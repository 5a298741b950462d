"""scripts/setup-node.sh (the Node part of the README's set-up) installs Debian's nodejs and npm when no Node 18+
with npm is on PATH, and leaves a suitable one alone.

The script runs with a PATH of stand-ins: ``apt-get`` records its arguments instead of installing anything, and
``node`` / ``npm`` are either absent or fakes that report a version, so the decision is tested without touching
the machine's packages.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.node]

REPOSITORY = Path(__file__).resolve().parents[2]
SCRIPT = REPOSITORY / "scripts" / "setup-node.sh"
# What the script needs from the system besides node, npm and apt-get.
TOOLS = ("bash", "dirname", "cmp", "cp", "cat", "mkdir")


def _run(tmp_path: Path, node_major: int | None) -> tuple[subprocess.CompletedProcess[str], str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    log = tmp_path / "apt.log"
    fakes = {"apt-get": f'#!/bin/sh\necho "$@" >> {log}\n'}
    if node_major is not None:
        fakes["node"] = f"#!/bin/sh\nprintf {node_major}\n"
        fakes["npm"] = f'#!/bin/sh\necho "npm $@" >> {log}\nmkdir -p node_modules\n'
    # A copy of the kit's layout, so the script's npm steps write nowhere near the real node_modules.
    kit = tmp_path / "kit"
    (kit / "scripts").mkdir(parents=True)
    shutil.copy2(SCRIPT, kit / "scripts" / SCRIPT.name)
    shutil.copy2(REPOSITORY / "package-lock.json", kit / "package-lock.json")
    for name, body in fakes.items():
        (bin_dir / name).write_text(body)
        (bin_dir / name).chmod(0o755)
    completed = subprocess.run(
        ["bash", str(kit / "scripts" / SCRIPT.name)],
        env={"PATH": str(bin_dir), "HOME": str(tmp_path), "SUDO": ""},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return completed, log.read_text() if log.exists() else ""


@pytest.mark.parametrize("node_major", [None, 16], ids=["absent", "too-old"])
def test_debian_nodejs_and_npm_are_installed_when_no_suitable_node(tmp_path: Path, node_major: int | None) -> None:
    completed, apt = _run(tmp_path, node_major)
    assert "install -y -qq --no-install-recommends nodejs npm" in apt, completed.stdout + completed.stderr
    # The stand-ins install nothing, so the script must say that JavaScript drivers stay unavailable, and finish.
    assert "JavaScript driver certification stays unavailable" in completed.stderr
    assert completed.returncode == 0, completed.stderr


def test_a_suitable_node_is_left_alone(tmp_path: Path) -> None:
    completed, apt = _run(tmp_path, 20)
    assert "nodejs" not in apt, apt
    assert completed.returncode == 0, completed.stderr
    # The lockfile's packages, then the execution runtime's; a second run finds node_modules made from the lockfile.
    assert "npm ci --no-audit" in apt and "npm ci --prefix reference/execution/js" in apt, apt
    assert "unavailable" not in completed.stderr, completed.stderr


def test_setup_runs_the_node_part() -> None:
    assert "bash scripts/setup-node.sh" in (REPOSITORY / "scripts" / "setup.sh").read_text()
    assert os.access(SCRIPT, os.X_OK)
