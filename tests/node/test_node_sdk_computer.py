"""Patched Node SDKs for the computer toolset and the computer-safety runner checks (``--node-sdk``).

Each patch is one textual change to a copy of the installed npm ``openai`` (the pattern of tests/node/test_node_sdk.py):
the one check covering the behaviour runs against it, and the certificate must blame exactly the patched clause;
an unpatched copy passes the same checks.
"""

from __future__ import annotations

import pytest

from tests.node.npm_patches import (
    COMPUTER_MODULE,
    TOOL_RUNNER_MODULE,
    NpmPatch,
    patched_copies_fail_exactly_their_clause,
    unpatched_copy_passes,
)

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]

TOOLSET_CHECKS = "conformance/contracts/toolset/check_computer.py"
SAFETY_CHECKS = "conformance/contracts/runner/check_computer_safety.py"

PATCHES: dict[str, NpmPatch] = {
    # The constructor takes a driver without wait().
    "optional-wait": NpmPatch.one(
        COMPUTER_MODULE,
        "wait: computerDriverMethod(driver, 'wait'),",
        "wait: driver.wait ?? (() => undefined),",
        f"{TOOLSET_CHECKS}::test_all_nine_methods_are_required",
        "TS-COMP-001",
    ),
    # Every wait action runs twice.
    "wait-twice": NpmPatch.one(
        COMPUTER_MODULE,
        "            await this.perform(action, snapshot, policy);",
        "            await this.perform(action, snapshot, policy);\n"
        "            if (action.type === 'wait') await this.perform(action, snapshot, policy);",
        f"{TOOLSET_CHECKS}::test_every_action_runs_once_in_order_then_the_screenshot",
        "TS-COMP-002",
    ),
    # Any truthy answer approves pending safety checks.
    "truthy-safety-approval": NpmPatch.one(
        COMPUTER_MODULE,
        "                if (approved !== true) {\n"
        "                    throw new OpenAIError('ComputerToolset requires explicit approval",
        "                if (!approved) {\n"
        "                    throw new OpenAIError('ComputerToolset requires explicit approval",
        f"{TOOLSET_CHECKS}::test_unapproved_safety_checks_stop_before_any_action",
        "TS-COMP-003",
    ),
    # The final screenshot is captured without asking beforeAction.
    "unasked-final-screenshot": NpmPatch.one(
        COMPUTER_MODULE,
        "        if (needsScreenshot) {",
        "        if (false) {",
        f"{TOOLSET_CHECKS}::test_before_action_precedes_every_action_and_the_screenshot",
        "TS-COMP-004",
    ),
    # A blank image_url passes screenshot validation.
    "blank-screenshot-url": NpmPatch.one(
        COMPUTER_MODULE,
        "(image_url !== undefined && (typeof image_url !== 'string' || !image_url.trim()))",
        "(image_url !== undefined && typeof image_url !== 'string')",
        f"{TOOLSET_CHECKS}::test_invalid_screenshot_stops",
        "TS-COMP-005",
    ),
    # A failing click is tried once more.
    "retried-click": NpmPatch.one(
        COMPUTER_MODULE,
        "await this.driver.click(dispatched, { signal: options.signal });",
        "await this.driver.click(dispatched, { signal: options.signal })"
        ".catch(() => this.driver.click(dispatched, { signal: options.signal }));",
        f"{TOOLSET_CHECKS}::test_failing_action_is_not_retried",
        "TS-COMP-006",
    ),
    # double_click is not given the signal.
    "unsignalled-double-click": NpmPatch.one(
        COMPUTER_MODULE,
        "await this.driver.double_click(dispatched, { signal: options.signal });",
        "await this.driver.double_click(dispatched, { signal: undefined });",
        f"{TOOLSET_CHECKS}::test_cancelled_passed_only_when_declared",
        "TS-COMP-007",
    ),
    # beforeAction is handed the action the driver will run, not a copy.
    "shared-action": NpmPatch.one(
        COMPUTER_MODULE,
        "            const view = structuredClone(action);",
        "            const view = action;",
        f"{TOOLSET_CHECKS}::test_callbacks_cannot_change_the_action",
        "TS-COMP-008",
    ),
    # execute() drops the caller's signal.
    "ignored-signal": NpmPatch.one(
        COMPUTER_MODULE,
        "            return await this.executeOwned(call, snapshotComputerPolicy(options));",
        "            return await this.executeOwned(call, { ...snapshotComputerPolicy(options), signal: undefined });",
        f"{TOOLSET_CHECKS}::test_no_action_after_a_reported_cancellation",
        "TS-COMP-009",
    ),
    # close() also closes the caller's computer driver.
    "closes-the-driver": NpmPatch.one(
        COMPUTER_MODULE,
        "        this.lifecycle = new RunnerLifecycle();\n        const methods = {",
        "        this.lifecycle = new RunnerLifecycle();\n"
        "        this.close = () => { driver.close?.(); return this.lifecycle.close(); };\n"
        "        const methods = {",
        "conformance/contracts/toolset/check_lifecycle.py::test_toolsets_never_close_the_driver",
        "TS-LIFE-003",
    ),
    # The runner does not hand the computer toolset the run's signal (approvals get none).
    "runner-drops-computer-signal": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "            const output = await this.computer.execute(item, {\n                signal,",
        "            const output = await this.computer.execute(item, {\n                signal: undefined,",
        f"{SAFETY_CHECKS}::test_callbacks_get_the_cancellation_probe_only_when_declared",
        "RN-SAFETY-007",
    ),
    # The same defect seen from the other side: a stop reported in an approval no longer stops the actions.
    "runner-drops-computer-signal-stop": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "            const output = await this.computer.execute(item, {\n                signal,",
        "            const output = await this.computer.execute(item, {\n                signal: undefined,",
        f"{SAFETY_CHECKS}::test_no_action_after_cancellation_reported_in_a_callback",
        "RN-SAFETY-008",
    ),
    # approveSafetyChecks is handed the call the toolset goes on to run, not a copy (edits made through the kit's
    # bridge land on it, as a JavaScript callback's would).
    "shared-approval-call": NpmPatch.one(
        COMPUTER_MODULE,
        "const view = structuredClone({ ...snapshot, pending_safety_checks: checks });",
        "const view = snapshot;",
        f"{SAFETY_CHECKS}::test_editing_what_callbacks_receive_changes_nothing",
        "RN-SAFETY-012",
    ),
    # A completed approval waits for the diagnostics observer, so a failing observer fails the approval.
    "awaited-approval-observer": NpmPatch.one(
        COMPUTER_MODULE,
        "reportDiagnostic(policy.onDiagnostic, { api: 'computer', stage: 'approval', reason: 'completed', "
        "call_id: snapshot.call_id }, started);",
        "await policy.onDiagnostic?.({ api: 'computer', stage: 'approval', reason: 'completed', "
        "call_id: snapshot.call_id });",
        f"{SAFETY_CHECKS}::test_failing_observer_cannot_change_a_computer_approval",
        "RN-DIAG-006",
    ),
}


test_a_patched_node_computer_toolset_fails_exactly_its_clause = patched_copies_fail_exactly_their_clause(PATCHES)


test_an_unpatched_copy_passes_the_same_computer_checks = unpatched_copy_passes(PATCHES)
