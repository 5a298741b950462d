"""The Node computer toolset checks added for the coverage gaps fail on a Node SDK with the matching defect: each
patch plants one defect in a copy of npm ``openai`` (tests/node/npm_patches.py) and the check must blame exactly
its clause, while an unpatched copy passes the same checks (the Python SDK's patches:
tests/test_sdk_findings_coverage_gaps.py).
"""

from __future__ import annotations

import pytest

from tests.node.npm_patches import (
    COMPUTER_MODULE,
    NpmPatch,
    patched_copies_fail_exactly_their_clause,
    unpatched_copy_passes,
)

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]

CHECKS = "conformance/contracts/toolset/check_computer_call_input.py"
INPUT_ITEMS = "lib/responses/ResponseInputItems.mjs"

PATCHES: dict[str, NpmPatch] = {
    # Every call must carry a checklist, also a modern one with an actions array.
    "checklist-required": NpmPatch.one(
        COMPUTER_MODULE,
        "if (!configuredOption(call, 'actions') || checks !== undefined) {",
        "if (true) {",
        f"{CHECKS}::test_modern_call_without_checklist_is_executed",
        "TS-COMP-015",
    ),
    # beforeAction gets the SDK's own snapshot of the call: no empty checklist, and edits reach the driver.
    "live-call-to-callback": NpmPatch.one(
        COMPUTER_MODULE,
        "const approved = await beforeAction(view, actionApprovalCall(call), {",
        "const approved = await beforeAction(view, call, {",
        f"{CHECKS}::test_callbacks_get_a_detached_call_with_an_empty_checklist",
        "TS-COMP-016",
    ),
    # A computer driver's click must answer with a promise: a plain answer fails the call.
    "click-needs-a-promise": NpmPatch.one(
        COMPUTER_MODULE,
        "await this.driver.click(dispatched, { signal: options.signal });",
        "await this.driver.click(dispatched, { signal: options.signal }).then(() => undefined);",
        f"{CHECKS}::test_plain_answers_from_a_node_computer_driver",
        "TS-COMP-017",
    ),
    # Replay fills in the checklist a modern computer call left out.
    "checklist-added-on-replay": NpmPatch(
        INPUT_ITEMS,
        (
            (
                "        case 'compaction_trigger':\n        case 'computer_call':\n",
                "        case 'compaction_trigger':\n",
            ),
            (
                "        case 'apply_patch_call':\n        case 'apply_patch_call_output':\n",
                "        case 'computer_call':\n"
                "            return { ...stripCreatedBy(item), "
                "pending_safety_checks: item.pending_safety_checks ?? [] };\n"
                "        case 'apply_patch_call':\n        case 'apply_patch_call_output':\n",
            ),
        ),
        "conformance/contracts/runner/check_computer_replay.py::test_call_without_checklist_is_replayed_as_it_came",
        "RN-SAFETY-013",
    ),
    # runnerFunction no longer asks for the typed tool's callback.
    # (and binds the callback only when it is called, so the missing one fails no earlier).
    "typed-tool-without-callback": NpmPatch(
        "helpers/responses-tool-runner.mjs",
        (
            (
                "typeof tool.$parseRaw !== 'function' ||\n        typeof tool.$callback !== 'function') {",
                "typeof tool.$parseRaw !== 'function') {",
            ),
            (
                "const executeTyped = tool.$callback.bind(tool);",
                "const executeTyped = (parsed) => tool.$callback(parsed);",
            ),
        ),
        "conformance/contracts/runner/check_typed_callback.py::test_typed_tool_without_its_callback_is_refused",
        "RN-TYPED-004",
    ),
}


test_a_patched_node_sdk_fails_exactly_its_clause = patched_copies_fail_exactly_their_clause(PATCHES)


test_an_unpatched_copy_passes_the_same_checks = unpatched_copy_passes(PATCHES)
