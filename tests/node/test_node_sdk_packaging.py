"""The Node SDK side ships in the wheel: the broker module, the Node deviation baseline, the Node request pins."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import pytest

from conformance.node.bridge import host_script
from conformance.node.sdk.broker import sdk_module
from conformance.node.sdk.subject import NODE_DEVIATIONS_DIR

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.node]

REPOSITORY = Path(__file__).resolve().parents[2]
PACKAGE_DATA = tomllib.loads((REPOSITORY / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-data"]


def test_the_broker_is_package_data_beside_the_host() -> None:
    assert sdk_module().is_file() and sdk_module().parent == host_script().parent
    assert any(fnmatch.fnmatch(sdk_module().name, pattern) for pattern in PACKAGE_DATA["*"])


def test_the_node_baseline_and_request_pins_are_package_data() -> None:
    baselines = sorted(NODE_DEVIATIONS_DIR.glob("*.toml"))
    assert baselines, "no Node deviation baseline"
    for baseline in baselines:
        relative = baseline.relative_to(REPOSITORY / "conformance").as_posix()
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in PACKAGE_DATA["conformance"]), relative
    pins = REPOSITORY / "conformance" / "contracts" / "runner" / "node_requests.json"
    assert pins.is_file() and any(fnmatch.fnmatch(pins.name, pattern) for pattern in PACKAGE_DATA["*"])
    assert (pins.parent / "__init__.py").is_file()
