"""The Node host and the reference Node driver ship in the wheel; npm's own folders never do."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from conformance.node.bridge import host_script

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.node]

REPOSITORY = Path(__file__).resolve().parents[2]


def test_the_host_is_package_data_next_to_the_python_modules() -> None:
    assert host_script().is_file()
    assert host_script().parent == REPOSITORY / "conformance" / "node" / "js"
    package_data = tomllib.loads((REPOSITORY / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    assert "*.mjs" in package_data["package-data"]["*"]
    # host.mjs imports its computer ops from beside itself: both must ship together.
    assert (host_script().parent / "computer.mjs").is_file()
    assert 'from "./computer.mjs"' in host_script().read_text("utf-8")


def test_node_modules_stay_out_of_the_packages() -> None:
    setup = (REPOSITORY / "setup.py").read_text("utf-8")
    assert '"*.node_modules"' in setup
    # The root node_modules is outside every package folder; the lockfile is what a clone installs from.
    assert (REPOSITORY / "package-lock.json").is_file()
    assert "/node_modules/" in (REPOSITORY / ".gitignore").read_text("utf-8").splitlines()
