"""The toolset checks added for the coverage gaps fail on a Node SDK with the matching defect: each patch plants
one defect in a copy of npm ``openai`` (tests/node/npm_patches.py) and the check must blame exactly its clause,
while an unpatched copy passes the same checks (the Python SDK's patches: tests/test_sdk_findings_toolset_gaps.py).
"""

from __future__ import annotations

import pytest

from tests.node.npm_patches import (
    BROWSER_MODULE,
    NpmPatch,
    patched_copies_fail_exactly_their_clause,
    unpatched_copy_passes,
)

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]

TOOLSET = "conformance/contracts/toolset"

PATCHES: dict[str, NpmPatch] = {
    # Any string passes as a scroll direction.
    "any-direction": NpmPatch.one(
        BROWSER_MODULE,
        "direction: (value) => typeof value === 'string' && ['up', 'down', 'left', 'right'].includes(value),",
        "direction: (value) => typeof value === 'string',",
        f"{TOOLSET}/check_validation.py::test_value_past_the_limit_is_refused[node-scroll.direction-1]",
        "TS-VAL-013",
    ),
    # execute no longer looks at the call's status.
    "any-status": NpmPatch.one(
        BROWSER_MODULE,
        "            typeof snapshot.call_id !== 'string' ||\n            snapshot.status !== 'completed') {",
        "            typeof snapshot.call_id !== 'string') {",
        f"{TOOLSET}/check_validation.py::test_unfinished_call_is_refused_before_any_work",
        "TS-VAL-014",
    ),
    # The output names a shortened call ID, which no longer pairs with a long one.
    "cut-call-id": NpmPatch.one(
        BROWSER_MODULE,
        "output: { type: 'function_call_output', call_id: callId, output: content },",
        "output: { type: 'function_call_output', call_id: callId.slice(0, 64), output: content },",
        f"{TOOLSET}/check_results.py::test_output_carries_the_call_id",
        "TS-RES-018",
    ),
    # BROWSER_MEMBERS is an ordinary array a caller could edit.
    "editable-members": NpmPatch.one(
        BROWSER_MODULE,
        "export const BROWSER_MEMBERS = Object.freeze(",
        "export const BROWSER_MEMBERS = (",
        f"{TOOLSET}/check_selection.py::test_exported_member_tuples_are_the_documented_vocabulary",
        "TS-SEL-009",
    ),
    # A toolset with confirmReads but no confirm is built, and the missing callback's answer counts as approval.
    "reads-without-confirm": NpmPatch(
        BROWSER_MODULE,
        (
            (
                "[...reads].some((name) => members[name].changes) ||\n"
                "                typeof configuredOption(options, 'confirm') !== 'function')) {",
                "[...reads].some((name) => members[name].changes))) {",
            ),
            (
                "const approved = await configuredOption(this.options, 'confirm')?.call(",
                "const approved = await (configuredOption(this.options, 'confirm') ?? (() => true)).call(",
            ),
        ),
        f"{TOOLSET}/check_confirmation.py::test_protected_read_without_confirm_never_runs",
        "TS-CONF-007",
    ),
    # confirmReads refuses read_diagnostics as if it changed something.
    "diagnostics-not-a-read": NpmPatch.one(
        BROWSER_MODULE,
        "[...reads].some((name) => members[name].changes) ||",
        "[...reads].some((name) => members[name].changes || name === 'read_diagnostics') ||",
        f"{TOOLSET}/check_confirmation.py::test_read_diagnostics_is_a_protectable_read_on_node",
        "TS-CONF-013",
    ),
    # BrowserError no longer names itself: its instances say Error, like any other failure.
    "unnamed-browser-error": NpmPatch.one(
        BROWSER_MODULE,
        "        this.name = 'BrowserError';\n",
        "",
        f"{TOOLSET}/check_results.py::test_browser_errors_report_one_stable_name",
        "TS-RES-019",
    ),
    # The scroll amount is declared from 1 (the validator still takes 0).
    "amount-from-one": NpmPatch.one(
        BROWSER_MODULE,
        "amount: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },",
        "amount: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },",
        f"{TOOLSET}/check_schemas.py::test_declared_field_schemas_match_the_field_kinds",
        "TS-SCHEMA-005",
    ),
    # Driver methods must answer with a promise: a plain answer fails the call.
    "promises-only": NpmPatch.one(
        BROWSER_MODULE,
        "result = await handler(args, { signal });",
        "result = await handler(args, { signal }).then((value) => value);",
        f"{TOOLSET}/check_plain_answers.py::test_node_honours_plain_answers",
        "TS-FLAV-003",
    ),
    # A null element value is taken as no value instead of being refused.
    "null-value-ignored": NpmPatch.one(
        BROWSER_MODULE,
        "if (fieldValue !== undefined) {",
        "if (fieldValue != null) {",
        f"{TOOLSET}/check_results.py::test_node_rejects_null_optional_read_fields[node-value]",
        "TS-RES-020",
    ),
    # The computer toolset reports closed at once, even while an approval callback is pending.
    "closed-under-approval": NpmPatch.one(
        "helpers/computer.mjs",
        "    close() {\n        return this.lifecycle.close();\n    }",
        "    close() {\n        this.lifecycle.close();\n        return { status: 'closed' };\n    }",
        f"{TOOLSET}/check_lifecycle.py::test_computer_close_drains_while_a_stopped_runs_approval_is_pending",
        "TS-LIFE-004",
    ),
}


test_a_patched_node_sdk_fails_exactly_its_clause = patched_copies_fail_exactly_their_clause(PATCHES)


test_an_unpatched_copy_passes_the_same_checks = unpatched_copy_passes(PATCHES)
