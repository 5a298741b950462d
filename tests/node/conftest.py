"""The JavaScript driver tests need Node 20+ and the npm packages of the root lockfile (scripts/setup.sh).

Without them every test here is skipped with the reason and the command that adds the missing piece, rather
than failing on a machine that cannot run JavaScript at all.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from conformance.node.bridge import NodeHostError, find_node

if TYPE_CHECKING:
    from conformance.node.sdk.broker import NodeSdk

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


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the installed npm openai per module; each patch (tests/node/npm_patches.py) edits a copy of it."""
    from tests.node.npm_patches import copy_installed

    return copy_installed(tmp_path_factory.mktemp("openai-npm") / "openai")


@pytest.fixture(scope="module")
def sdk() -> Iterator[NodeSdk]:
    """A Node SDK broker (its own Node host) per module, closed after it."""
    from conformance.node.sdk.broker import NodeSdk

    broker = NodeSdk()
    yield broker
    broker.close()
