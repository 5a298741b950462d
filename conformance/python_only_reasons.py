"""Why a check is about something only the Python SDK has: the reasons its ``python_sdk_only`` mark gives.

A check marked ``@pytest.mark.python_sdk_only(reason)`` (on the function, the module or one ``pytest.param`` case)
is reported "not implemented" on the Node SDK (``--sdk=node``) with the reason, like a driver's missing member: the
Node SDK does not have the thing at all, so the check says nothing against its verdict.
"""

from __future__ import annotations

from typing import Final

FLAVOUR_RULES: Final = "the sync/async flavour rules are the Python SDK's; the Node SDK has one (async) form"
BYTES: Final = "bytes is a Python type; a JavaScript driver has no value that crosses as it"
TASK_CANCELLATION: Final = (
    "cancelling the asyncio task running a run is the Python SDK's form; a Node run has no task to cancel and is "
    "stopped through its AbortSignal (the cancelled-predicate checks)"
)
RUNNER_TASK: Final = (
    "cancelling the asyncio task of a run is the Python async runner's; the Node runner is cancelled through its "
    "AbortSignal (checked by RN-CANCEL-001 and RN-CONC-010) and lets a running function finish unless the function "
    "honours the signal, which a Python function cannot (only a snapshot of the signal crosses)"
)
DECISIONS_TASK: Final = (
    "cancelling the asyncio task of a Decisions run is the Python async runner's; a Node Decisions run is stopped "
    "through its AbortSignal"
)
PYTHON_TYPES: Final = (
    "the Python module's typing protocols and typed dicts; the Node SDK's types are TypeScript declarations, which "
    "do not exist when the toolset runs"
)
SNAPSHOT: Final = "the snapshot is a regression record of the Python SDK's declarations, not a reading of the documents"
SELECTION_SNAPSHOT: Final = (
    "the snapshot is a regression record of the Python SDK's declarations (its own clauses are checked by the "
    "selection checks)"
)
PYDANTIC: Final = (
    "a Pydantic model instance is the Python SDK's typed form (from_tool over pydantic_responses_function_tool); the "
    "Node typed registration is checked by the other RN-TYPED checks"
)
PACKAGE_EXPORTS: Final = (
    "the Python package's exports; the Node SDK's ComputerToolset export is used by every Node computer check"
)
