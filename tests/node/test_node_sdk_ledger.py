"""The Node SDK's checkpoint ledger and the browser toolset's execute options, under ``--node-sdk``.

The ledger checks (RN-LEDGER-002..006, and the MCP resume check) and the execute-option checks (TS-CONF-010's
``cancelled``, TS-DIAG-001/002's ``on_diagnostic``) run against the npm ``openai`` through the kit's mapping
(:mod:`conformance.node.sdk.ledger`, :mod:`conformance.node.sdk.execute`). Each patch below is one defect in a
copy of the installed package and must fail exactly its clause; the unpatched copy passes the same checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.contracts.toolset._toolsets import function_call, payload
from conformance.node.sdk.ledger import NodeLedger
from conformance.node.sdk.toolsets import NodeBrowserToolset
from conformance.probes import browser_probe
from conformance.rig import checkpoint_ledger
from tests.node.npm_patches import (
    BROWSER_MODULE,
    DIAGNOSTICS_MODULE,
    TOOL_RUNNER_MODULE,
    NpmPatch,
    assert_unpatched_passes,
    patched_copies_fail_exactly_their_clause,
    statuses,
)

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]

LEDGER = "conformance/contracts/runner/check_ledger.py"
CONFIRMATION = "conformance/contracts/toolset/check_confirmation.py"
DIAGNOSTICS = "conformance/contracts/toolset/check_diagnostics.py"

# name: (file, old text, new text, the check to run, the clause it must fail)
PATCHES: dict[str, NpmPatch] = {
    # Saving stops once a call has been attempted: nothing is saved after the first effect.
    "no-saves-after-effects": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "            const revision = ledger.revision + 1;",
        "            if (ledger.attempted_call_ids.length > 0) return;\n"
        "            const revision = ledger.revision + 1;",
        f"{LEDGER}::test_saves_surround_each_effect",
        "RN-LEDGER-002",
    ),
    # The save before an effect is dropped: the last save before a call does not show it attempted.
    "no-save-before-effect": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "        attempted.push(item.call_id);\n        await record?.();\n",
        "        attempted.push(item.call_id);\n",
        f"{LEDGER}::test_saves_surround_each_effect",
        "RN-LEDGER-005",
    ),
    # The save after an effect comes before the call is marked returned.
    "save-after-effect-too-early": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "        completed.push(item.call_id);\n        await record?.();\n        if (record && turn.browserFailed) {",
        "        await record?.();\n        completed.push(item.call_id);\n        if (record && turn.browserFailed) {",
        f"{LEDGER}::test_saves_surround_each_effect",
        "RN-LEDGER-006",
    ),
    # A checkpoint saved in the middle of a turn (phase pending) is resumed as a boundary without its unfinished turn.
    "resume-from-pending": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "        const resume = ledgerCopy(config.resumeFrom ?? null);",
        "        const saved = ledgerCopy(config.resumeFrom ?? null);\n"
        "        const resume = saved?.phase === 'pending' ? { ...saved, phase: 'boundary', pending_items: [], "
        "returned_outputs: [], attempted_call_ids: [], returned_call_ids: [] } : saved;",
        f"{LEDGER}::test_pending_checkpoint_is_never_resumable",
        "RN-LEDGER-003",
    ),
    # A resumed run counts its requests from zero again.
    "budget-restarts-on-resume": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "            consumed_requests: resume?.consumed_requests ?? 0,",
        "            consumed_requests: 0,",
        f"{LEDGER}::test_request_budget_survives_resume",
        "RN-LEDGER-004",
    ),
    # The toolset does not hand the call's signal to the driver method.
    "driver-without-signal": NpmPatch.one(
        BROWSER_MODULE,
        "                result = await handler(args, { signal });",
        "                result = await handler(args, {});",
        f"{CONFIRMATION}::test_cancelled_passed_only_when_declared",
        "TS-CONF-010",
    ),
    # Diagnostic events carry an extra field.
    "diagnostic-extra-field": NpmPatch.one(
        DIAGNOSTICS_MODULE,
        "            member: event.member ?? null,",
        "            member: event.member ?? null,\n            tab: 'tab-1',",
        f"{DIAGNOSTICS}::test_browser_events_carry_only_documented_fields",
        "TS-DIAG-001",
    ),
    # The approval's diagnostic is awaited, so an observer that fails stops the action.
    "observer-failure-stops-action": NpmPatch.one(
        BROWSER_MODULE,
        "                    reportDiagnostic(observer, { api: 'browser', stage, reason: 'completed', call_id: "
        "snapshot.call_id, member }, started);",
        "                    await observer?.({ api: 'browser', stage, reason: 'completed', call_id: snapshot.call_id, "
        "member, duration_ms: 0, usage: null });",
        f"{DIAGNOSTICS}::test_raising_observer_changes_nothing",
        "TS-DIAG-002",
    ),
}

NEWLY_CHECKED = ("RN-LEDGER-002", "RN-LEDGER-003", "RN-LEDGER-004", "RN-LEDGER-005", "RN-LEDGER-006")
EXECUTE_OPTION_CLAUSES = ("TS-CONF-010", "TS-DIAG-001", "TS-DIAG-002")


test_a_patched_node_sdk_fails_exactly_its_clause = patched_copies_fail_exactly_their_clause(PATCHES)


def test_an_unpatched_copy_passes_the_same_checks(pristine: Path, tmp_path: Path) -> None:
    more = (LEDGER, "conformance/contracts/runner/check_mcp.py", CONFIRMATION, DIAGNOSTICS)
    certificate = assert_unpatched_passes(PATCHES.values(), pristine, tmp_path, *more)
    checked = statuses(certificate)
    for clause in (*NEWLY_CHECKED, *EXECUTE_OPTION_CLAUSES, "RN-MCP-006"):
        assert checked[clause] == "passed", (clause, checked[clause])


# ------------------------------------------------------------------------------------------ the kit's mapping


def test_a_node_ledger_is_the_node_option_and_refuses_bad_input() -> None:
    saved: list[object] = []
    ledger = checkpoint_ledger("node", "run-7", saved.append)
    assert isinstance(ledger, NodeLedger)
    assert ledger.option() == {"runId": "run-7", "save": saved.append}
    resumed = checkpoint_ledger("node", "run-7", saved.append, {"phase": "boundary"})
    assert isinstance(resumed, NodeLedger) and resumed.option()["resumeFrom"] == {"phase": "boundary"}
    with pytest.raises(ValueError, match="nonempty run ID"):
        NodeLedger("", saved.append)
    with pytest.raises(ValueError, match="save must be callable"):
        NodeLedger("run-7", "not a function")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="resumes from a checkpoint"):
        NodeLedger("run-7", saved.append, ["boundary"])  # type: ignore[arg-type]


def _navigate(declares: bool = False) -> tuple[NodeBrowserToolset, Any]:
    driver = browser_probe("node", ["navigate"], declares_cancelled=declares)
    confirm = driver.log.callback("confirm", flavour="node")
    policy = driver.log.callback("url_policy", flavour="node")
    return NodeBrowserToolset(driver, members=["navigate"], confirm=confirm, url_policy=policy), driver


NAVIGATE = function_call("navigate", {"url": "https://probe.example/next", "tab_id": None})


def test_a_predicate_true_before_the_call_aborts_it_before_any_driver_work() -> None:
    toolset, driver = _navigate()
    with pytest.raises(Exception, match="aborted") as raised:
        toolset.execute(NAVIGATE, cancelled=lambda: True)
    assert getattr(raised.value, "js_class", None) == "AbortError"
    assert driver.log.names() == []


def test_a_predicate_turning_true_in_a_callback_aborts_before_the_next_step() -> None:
    # The predicate reports true once confirm has answered: Node must not run the action.
    toolset, driver = _navigate(declares=True)
    with pytest.raises(Exception, match="aborted"):
        toolset.execute(NAVIGATE, cancelled=lambda: "confirm" in driver.log.names())
    assert driver.log.names() == ["state", "url_policy", "confirm"]


def test_the_call_observer_gets_events_only_during_its_call_and_the_toolset_observer_otherwise() -> None:
    standing: list[dict[str, Any]] = []
    driver = browser_probe("node", ["get_page_text"])
    toolset = NodeBrowserToolset(driver, members=["get_page_text"], on_diagnostic=standing.append)
    read = function_call("get_page_text", {"tab_id": None}, call_id="call-r")
    this_call: list[dict[str, Any]] = []
    assert payload(toolset.execute(read, on_diagnostic=this_call.append))["ok"] is True
    assert [event["call_id"] for event in this_call] == ["call-r"] and standing == []
    toolset.execute(read)
    assert [event["call_id"] for event in standing] == ["call-r"] and len(this_call) == 1
    assert json.dumps(standing[0], default=str).count("get_page_text") == 1  # the member, nothing else of the call


def test_unknown_execute_options_are_refused_like_the_python_toolset_does() -> None:
    toolset, _driver = _navigate()
    with pytest.raises(TypeError, match=r"unknown options \['timeout'\]"):
        toolset.execute(NAVIGATE, timeout=3)
    with pytest.raises(ValueError, match="cancelled must be a predicate"):
        toolset.execute(NAVIGATE, cancelled=True)
    with pytest.raises(ValueError, match="on_diagnostic must be a callable"):
        toolset.execute(NAVIGATE, on_diagnostic=[])


def test_a_raising_predicate_leaves_no_cancellation_behind() -> None:
    toolset, driver = _navigate()

    def broken() -> bool:
        raise RuntimeError("predicate failed")

    with pytest.raises(RuntimeError, match="predicate failed"):
        toolset.execute(NAVIGATE, cancelled=broken)
    assert payload(toolset.execute(NAVIGATE))["ok"] is True
    assert driver.log.names() == ["state", "url_policy", "confirm", "navigate", "state"]
