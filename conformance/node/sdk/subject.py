"""What ``--node-sdk`` (``driverkit certify --sdk=node``) changes in a run.

The runner modes, which checks run, the deviation baseline and the certificate's profile:

- The runner suite's checks take the Node SDK's modes (:data:`~conformance.rig.modes.NODE_MODES`), and each
  scenario runs through the npm ``openai`` (:mod:`conformance.contracts.runner._node_scenario`).
- A check of what only the Python SDK has (marked ``python_sdk_only``, reasons in
  :mod:`conformance.python_only_reasons`: the sync/async flavour rules, asyncio task cancellation, Python types) is
  reported "not implemented" on the Node SDK, with why; a check the kit has not given a Node form is "not checked",
  with why. Neither is ever passed or dropped.
- Known deviations come from ``conformance/known_deviations/node/<npm version>.toml``, same format and the same
  strict-xfail rules as the Python SDK's files (:mod:`conformance.deviations`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import pytest

from conformance.deviations import DEVIATIONS_DIR, apply_deviations
from conformance.node.sdk.broker import close_shared, openai_folder, sdk_module
from conformance.rig.modes import Mode

NODE_DEVIATIONS_DIR: Final[Path] = DEVIATIONS_DIR / "node"
NO_NODE_FORM: Final = (
    "on the Node SDK: this check drives the Python SDK's API itself and the kit has not given it a Node form yet "
    "(a node flavour or mode, or the node_sdk marker)"
)


def node_sdk_version() -> str:
    """The npm ``openai`` version the kit's Node side imports (``DRIVERKIT_NODE_OPENAI``'s, else the nearest
    node_modules above sdk.mjs)."""
    chosen = openai_folder()
    if chosen is not None:
        return str(json.loads((chosen / "package.json").read_text("utf-8"))["version"])
    for folder in sdk_module().parents:
        manifest = folder / "node_modules" / "openai" / "package.json"
        if manifest.is_file():
            return str(json.loads(manifest.read_text("utf-8"))["version"])
    raise FileNotFoundError(f"no node_modules/openai above {sdk_module().parent} (run the kit's setup: npm ci)")


def _runs_in_node(item: pytest.Item) -> bool:
    if item.get_closest_marker("node_sdk") is not None:
        return True
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    mode = params.get("mode")
    return (isinstance(mode, Mode) and mode.flavour == "node") or params.get("flavour") == "node"


def collect(items: Sequence[pytest.Item]) -> None:
    """Mark what only the Python SDK has not implemented and the checks the kit has not given a Node form not
    checked, then apply the Node SDK's known deviations.

    The Python-only checks exercise what the Node SDK does not have at all (a sync flavour, asyncio tasks, Python
    types), so, like a driver's missing member, they say nothing against its verdict; a check merely not yet
    adapted leaves its clause not checked, which does.
    """
    for item in items:
        marker = item.get_closest_marker("python_sdk_only")
        why = str(marker.args[0]) if marker is not None and marker.args else None
        if why is not None:
            item.add_marker(pytest.mark.driverkit_outcome("not_implemented", f"on the Node SDK: {why}"))
        elif not _runs_in_node(item):
            item.add_marker(pytest.mark.driverkit_outcome("not_checked", NO_NODE_FORM))
    apply_deviations(items, node_sdk_version(), NODE_DEVIATIONS_DIR)


def node_profile() -> dict[str, Any]:
    return {"software": {"openai (npm)": node_sdk_version()}}


def close() -> list[str]:
    return close_shared()
