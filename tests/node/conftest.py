"""The JavaScript driver tests need Node 20+ and the npm packages of the root lockfile (scripts/setup.sh).

Without them every test here is skipped with the reason and the command that adds the missing piece, rather
than failing on a machine that cannot run JavaScript at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.harness.node.bridge import NodeHostError, find_node

REPOSITORY = Path(__file__).resolve().parents[2]


def _missing() -> str | None:
    try:
        find_node()
    except NodeHostError as error:
        return str(error)
    for package in ("openai", "playwright", "tsx"):
        if not (REPOSITORY / "node_modules" / package / "package.json").is_file():
            return f"the npm package {package} is not installed (run scripts/setup.sh, or npm ci in the clone)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = _missing()
    if reason is None:
        return
    here = Path(__file__).parent
    for item in items:
        # What the wheel carries is checked without running any JavaScript.
        if item.path.is_relative_to(here) and item.path.name != "test_node_packaging.py":
            item.add_marker(pytest.mark.skip(reason=reason))
