"""What ``--node-sdk`` (``driverkit certify --sdk=node``) changes in a run.

The runner modes, which checks run, the deviation baseline and the certificate's profile:

- The runner suite's checks take the Node SDK's modes (:data:`~conformance.rig.modes.NODE_MODES`), and each
  scenario runs through the npm ``openai`` (:mod:`conformance.contracts.runner._node_scenario`).
- A check of what only the Python SDK has (:data:`PYTHON_ONLY`: the sync/async flavour rules, asyncio task
  cancellation, Python types) is reported "not implemented" on the Node SDK, with why; a check the kit has not
  given a Node form is "not checked", with why. Neither is ever passed or dropped.
- Known deviations come from ``conformance/known_deviations/node/<npm version>.toml``, same format and the same
  strict-xfail rules as the Python SDK's files (:mod:`conformance.deviations`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import pytest

from conformance.deviations import DEVIATIONS_DIR, apply_deviations, contract_key
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


_TASK_CANCELLATION: Final = (
    "cancelling the asyncio task running a run is the Python SDK's form; a Node run has no task to cancel and is "
    "stopped through its AbortSignal (the cancelled-predicate checks)"
)

_PYTHON_TYPES: Final = (
    "the Python module's typing protocols and typed dicts; the Node SDK's types are TypeScript declarations, "
    "which do not exist when the toolset runs"
)

# Checks about what only the Python SDK has, by test name (relative to conformance/contracts/), with why.
PYTHON_ONLY: Final[dict[str, str]] = {
    "toolset/check_flavour.py": "the sync/async flavour rules are the Python SDK's; the Node SDK has one (async) form",
    "toolset/check_confirmation.py::test_callbacks_must_match_the_toolset_flavour": (
        "the sync/async flavour rules are the Python SDK's; the Node SDK has one (async) form"
    ),
    "toolset/check_results.py::test_action_results_must_be_string_or_none[node-bytes]": (
        "bytes is a Python type; a JavaScript driver has no value that crosses as it"
    ),
    "runner/check_computer_safety.py::test_task_cancelled_while_approval_is_pending": _TASK_CANCELLATION,
    "runner/check_computer_safety.py::test_callback_suppressing_task_cancellation_still_stops_effects": (
        _TASK_CANCELLATION
    ),
    "toolset/check_schemas.py::test_declared_field_schemas_match_snapshot": (
        "the snapshot is a regression record of the Python SDK's declarations, not a reading of the documents"
    ),
    "runner/check_turns.py::test_task_cancellation_raises_runner_cancelled_error": (
        "cancelling the asyncio task of a run is the Python async runner's; the Node runner is cancelled through its "
        "AbortSignal (checked by RN-CANCEL-001 and RN-CONC-010) and lets a running function finish unless the "
        "function honours the signal, which a Python function cannot (only a snapshot of the signal crosses)"
    ),
    "toolset/check_schemas.py::test_driver_protocols_are_exported": _PYTHON_TYPES,
    "toolset/check_schemas.py::test_named_argument_and_result_types_are_exported": _PYTHON_TYPES,
    "runner/check_decisions_contract.py::test_async_cancellation_raises_decisions_cancelled_error": (
        "cancelling the asyncio task of a Decisions run is the Python async runner's; a Node Decisions run is "
        "stopped through its AbortSignal"
    ),
    "runner/check_typed_and_server.py::test_typed_executor_receives_the_model_instance": (
        "a Pydantic model instance is the Python SDK's typed form (from_tool over pydantic_responses_function_tool); "
        "the Node typed registration is checked by the other RN-TYPED checks"
    ),
    "toolset/check_computer_contract.py::test_computer_names_are_exported_from_openai": (
        "the Python package's exports; the Node SDK's ComputerToolset export is used by every Node computer check"
    ),
    "toolset/check_computer_contract.py::test_wrapped_mismatch_is_refused_at_construction": (
        "the sync/async flavour rules are the Python SDK's; the Node SDK has one (async) form"
    ),
    "toolset/check_computer_contract.py::test_wrapped_matching_methods_are_accepted": (
        "the sync/async flavour rules are the Python SDK's; the Node SDK has one (async) form"
    ),
    "toolset/check_computer_contract.py::test_opaque_wrapper_of_the_other_flavour_fails_when_called": (
        "the sync/async flavour rules are the Python SDK's; the Node SDK has one (async) form"
    ),
    "toolset/check_schemas.py::test_selections_match_snapshot": (
        "the snapshot is a regression record of the Python SDK's declarations (its own clauses are checked by "
        "the selection checks)"
    ),
}


def _python_only(item: pytest.Item) -> str | None:
    # A pattern names a module, a check (every parametrization) or one parametrization.
    key = contract_key(item)
    if key is None:
        return None
    for candidate in (key, key.split("[", 1)[0], key.split("::", 1)[0]):
        why = PYTHON_ONLY.get(candidate)
        if why is not None:
            return why
    return None


def collect(items: Sequence[pytest.Item]) -> None:
    """Mark what only the Python SDK has not implemented and the checks the kit has not given a Node form not
    checked, then apply the Node SDK's known deviations.

    The Python-only checks exercise what the Node SDK does not have at all (a sync flavour, asyncio tasks, Python
    types), so, like a driver's missing member, they say nothing against its verdict; a check merely not yet
    adapted leaves its clause not checked, which does.
    """
    for item in items:
        why = _python_only(item)
        if why is not None:
            item.add_marker(pytest.mark.driverkit_outcome("not_implemented", f"on the Node SDK: {why}"))
        elif not _runs_in_node(item):
            item.add_marker(pytest.mark.driverkit_outcome("not_checked", NO_NODE_FORM))
    apply_deviations(items, node_sdk_version(), NODE_DEVIATIONS_DIR)


def node_profile() -> dict[str, Any]:
    return {"software": {"openai (npm)": node_sdk_version()}}


def close() -> list[str]:
    return close_shared()
