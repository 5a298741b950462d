"""The npm patch catalogues: for each family of clauses, the defects planted in copies of npm ``openai`` that the
family's checks must catch, each named and commented with the defect it plants.

tests/node/test_node_sdk_patches.py runs them (a case per patch, ``family/name``, and an unpatched control per
family); the machinery is tests/node/npm_patches.py. A new family is a dict here and its line in ``CATALOGUES``.
"""

from __future__ import annotations

from tests.node.npm_patches import (
    BROWSER_MODULE,
    COMPUTER_MODULE,
    DECISIONS_MODULE,
    DIAGNOSTICS_MODULE,
    RUNNER_CHECKS,
    TOOL_RUNNER_MODULE,
    TOOLSET_CHECKS,
    Catalogue,
    NpmPatch,
)

# Basic runner and toolset behaviour on the Node SDK: the runner's default request limit (RN-STEPS-002), eager
# dispatch at an item's done event (RN-STREAM-002), and consent only from a confirm answering exactly true
# (TS-CONF-004).
BASICS: dict[str, NpmPatch] = {
    # The runner's default request limit raised from 20 to 21.
    "default-steps": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "(source?.max_steps ?? 20)",
        "(source?.max_steps ?? 21)",
        f"{RUNNER_CHECKS}/check_loop.py::test_default_request_limit_is_twenty",
        "RN-STEPS-002",
    ),
    # Eager runs never start a call at its done event (they wait for the completed response).
    "never-eager": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "if (options.eager === true && event.type === 'response.output_item.done') {",
        "if (false && event.type === 'response.output_item.done') {",
        f"{RUNNER_CHECKS}/check_streaming.py::test_eager_starts_at_item_done",
        "RN-STREAM-002",
    ),
    # The browser toolset takes any truthy confirm answer as consent, not only exactly true.
    "truthy-confirm": NpmPatch.one(
        BROWSER_MODULE,
        "(await policy.confirm?.(protectBrowserOutput(structuredClone(context)), { signal })) !== true) {",
        "!(await policy.confirm?.(protectBrowserOutput(structuredClone(context)), { signal }))) {",
        f"{TOOLSET_CHECKS}/check_confirmation.py::test_only_exactly_true_approves",
        "TS-CONF-004",
    ),
}

# The computer toolset (conformance/contracts/toolset/check_computer.py, and closing in check_lifecycle.py) and the
# computer-safety runner checks (conformance/contracts/runner/check_computer_safety.py) on the Node SDK.
COMPUTER: dict[str, NpmPatch] = {
    # The constructor takes a driver without wait().
    "optional-wait": NpmPatch.one(
        COMPUTER_MODULE,
        "wait: computerDriverMethod(driver, 'wait'),",
        "wait: driver.wait ?? (() => undefined),",
        f"{TOOLSET_CHECKS}/check_computer.py::test_all_nine_methods_are_required",
        "TS-COMP-001",
    ),
    # Every wait action runs twice.
    "wait-twice": NpmPatch.one(
        COMPUTER_MODULE,
        "            await this.perform(action, snapshot, policy);",
        "            await this.perform(action, snapshot, policy);\n"
        "            if (action.type === 'wait') await this.perform(action, snapshot, policy);",
        f"{TOOLSET_CHECKS}/check_computer.py::test_every_action_runs_once_in_order_then_the_screenshot",
        "TS-COMP-002",
    ),
    # Any truthy answer approves pending safety checks.
    "truthy-safety-approval": NpmPatch.one(
        COMPUTER_MODULE,
        "                if (approved !== true) {\n"
        "                    throw new OpenAIError('ComputerToolset requires explicit approval",
        "                if (!approved) {\n"
        "                    throw new OpenAIError('ComputerToolset requires explicit approval",
        f"{TOOLSET_CHECKS}/check_computer.py::test_unapproved_safety_checks_stop_before_any_action",
        "TS-COMP-003",
    ),
    # The final screenshot is captured without asking beforeAction.
    "unasked-final-screenshot": NpmPatch.one(
        COMPUTER_MODULE,
        "        if (needsScreenshot) {",
        "        if (false) {",
        f"{TOOLSET_CHECKS}/check_computer.py::test_before_action_precedes_every_action_and_the_screenshot",
        "TS-COMP-004",
    ),
    # A blank image_url passes screenshot validation.
    "blank-screenshot-url": NpmPatch.one(
        COMPUTER_MODULE,
        "(image_url !== undefined && (typeof image_url !== 'string' || !image_url.trim()))",
        "(image_url !== undefined && typeof image_url !== 'string')",
        f"{TOOLSET_CHECKS}/check_computer.py::test_invalid_screenshot_stops",
        "TS-COMP-005",
    ),
    # A failing click is tried once more.
    "retried-click": NpmPatch.one(
        COMPUTER_MODULE,
        "await this.driver.click(dispatched, { signal: options.signal });",
        "await this.driver.click(dispatched, { signal: options.signal })"
        ".catch(() => this.driver.click(dispatched, { signal: options.signal }));",
        f"{TOOLSET_CHECKS}/check_computer.py::test_failing_action_is_not_retried",
        "TS-COMP-006",
    ),
    # double_click is not given the signal.
    "unsignalled-double-click": NpmPatch.one(
        COMPUTER_MODULE,
        "await this.driver.double_click(dispatched, { signal: options.signal });",
        "await this.driver.double_click(dispatched, { signal: undefined });",
        f"{TOOLSET_CHECKS}/check_computer.py::test_cancelled_passed_only_when_declared",
        "TS-COMP-007",
    ),
    # beforeAction is handed the action the driver will run, not a copy.
    "shared-action": NpmPatch.one(
        COMPUTER_MODULE,
        "            const view = structuredClone(action);",
        "            const view = action;",
        f"{TOOLSET_CHECKS}/check_computer.py::test_callbacks_cannot_change_the_action",
        "TS-COMP-008",
    ),
    # execute() drops the caller's signal.
    "ignored-signal": NpmPatch.one(
        COMPUTER_MODULE,
        "            return await this.executeOwned(call, snapshotComputerPolicy(options));",
        "            return await this.executeOwned(call, { ...snapshotComputerPolicy(options), signal: undefined });",
        f"{TOOLSET_CHECKS}/check_computer.py::test_no_action_after_a_reported_cancellation",
        "TS-COMP-009",
    ),
    # close() also closes the caller's computer driver.
    "closes-the-driver": NpmPatch.one(
        COMPUTER_MODULE,
        "        this.lifecycle = new RunnerLifecycle();\n        const methods = {",
        "        this.lifecycle = new RunnerLifecycle();\n"
        "        this.close = () => { driver.close?.(); return this.lifecycle.close(); };\n"
        "        const methods = {",
        f"{TOOLSET_CHECKS}/check_lifecycle.py::test_toolsets_never_close_the_driver",
        "TS-LIFE-003",
    ),
    # The runner does not hand the computer toolset the run's signal (approvals get none).
    "runner-drops-computer-signal": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "            const output = await this.computer.execute(item, {\n                signal,",
        "            const output = await this.computer.execute(item, {\n                signal: undefined,",
        f"{RUNNER_CHECKS}/check_computer_safety.py::test_callbacks_get_the_cancellation_probe_only_when_declared",
        "RN-SAFETY-007",
    ),
    # The same defect seen from the other side: a stop reported in an approval no longer stops the actions.
    "runner-drops-computer-signal-stop": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "            const output = await this.computer.execute(item, {\n                signal,",
        "            const output = await this.computer.execute(item, {\n                signal: undefined,",
        f"{RUNNER_CHECKS}/check_computer_safety.py::test_no_action_after_cancellation_reported_in_a_callback",
        "RN-SAFETY-008",
    ),
    # approveSafetyChecks is handed the call the toolset goes on to run, not a copy (edits made through the kit's
    # bridge land on it, as a JavaScript callback's would).
    "shared-approval-call": NpmPatch.one(
        COMPUTER_MODULE,
        "const view = structuredClone({ ...snapshot, pending_safety_checks: checks });",
        "const view = snapshot;",
        f"{RUNNER_CHECKS}/check_computer_safety.py::test_editing_what_callbacks_receive_changes_nothing",
        "RN-SAFETY-012",
    ),
    # A completed approval waits for the diagnostics observer, so a failing observer fails the approval.
    "awaited-approval-observer": NpmPatch.one(
        COMPUTER_MODULE,
        "reportDiagnostic(policy.onDiagnostic, { api: 'computer', stage: 'approval', reason: 'completed', "
        "call_id: snapshot.call_id }, started);",
        "await policy.onDiagnostic?.({ api: 'computer', stage: 'approval', reason: 'completed', "
        "call_id: snapshot.call_id });",
        f"{RUNNER_CHECKS}/check_computer_safety.py::test_failing_observer_cannot_change_a_computer_approval",
        "RN-DIAG-006",
    ),
}

# The computer toolset and runner checks added for the coverage gaps, on the Node SDK (the Python SDK's patches:
# tests/test_sdk_findings_coverage_gaps.py).
COVERAGE_GAPS: dict[str, NpmPatch] = {
    # Every call must carry a checklist, also a modern one with an actions array.
    "checklist-required": NpmPatch.one(
        COMPUTER_MODULE,
        "if (!configuredOption(call, 'actions') || checks !== undefined) {",
        "if (true) {",
        f"{TOOLSET_CHECKS}/check_computer_call_input.py::test_modern_call_without_checklist_is_executed",
        "TS-COMP-015",
    ),
    # beforeAction gets the SDK's own snapshot of the call: no empty checklist, and edits reach the driver.
    "live-call-to-callback": NpmPatch.one(
        COMPUTER_MODULE,
        "const approved = await beforeAction(view, actionApprovalCall(call), {",
        "const approved = await beforeAction(view, call, {",
        f"{TOOLSET_CHECKS}/check_computer_call_input.py::test_callbacks_get_a_detached_call_with_an_empty_checklist",
        "TS-COMP-016",
    ),
    # A computer driver's click must answer with a promise: a plain answer fails the call.
    "click-needs-a-promise": NpmPatch.one(
        COMPUTER_MODULE,
        "await this.driver.click(dispatched, { signal: options.signal });",
        "await this.driver.click(dispatched, { signal: options.signal }).then(() => undefined);",
        f"{TOOLSET_CHECKS}/check_computer_call_input.py::test_plain_answers_from_a_node_computer_driver",
        "TS-COMP-017",
    ),
    # Replay fills in the checklist a modern computer call left out.
    "checklist-added-on-replay": NpmPatch(
        "lib/responses/ResponseInputItems.mjs",
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
        f"{RUNNER_CHECKS}/check_computer_replay.py::test_call_without_checklist_is_replayed_as_it_came",
        "RN-SAFETY-013",
    ),
    # runnerFunction no longer asks for the typed tool's callback.
    # (and binds the callback only when it is called, so the missing one fails no earlier).
    "typed-tool-without-callback": NpmPatch(
        TOOL_RUNNER_MODULE,
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
        f"{RUNNER_CHECKS}/check_typed_callback.py::test_typed_tool_without_its_callback_is_refused",
        "RN-TYPED-004",
    ),
}

# The Decisions runner's clauses on the Node SDK, and RN-EARLY-007 of the Responses runner (a truthy computer flag),
# checked with the Decisions runner's exact-boolean checks; each patch edits the package's Decisions runner or its
# Responses runner.
DECISIONS: dict[str, NpmPatch] = {
    # verify answering any truthy value reports "verified".
    "truthy-verify": NpmPatch.one(
        DECISIONS_MODULE,
        "if (verified === true) {",
        "if (verified) {",
        f"{RUNNER_CHECKS}/check_exact_booleans.py::test_truthy_verify_never_verifies",
        "RN-DEC-001",
    ),
    # 256 candidates accepted.
    "candidate-limit": NpmPatch.one(
        DECISIONS_MODULE,
        "if (length < 1 || length > 255) {",
        "if (length < 1 || length > 256) {",
        f"{RUNNER_CHECKS}/check_decisions.py::test_candidate_count_limit",
        "RN-DEC-005",
    ),
    # An action chosen on the last allowed request runs.
    "last-step-runs": NpmPatch.one(
        DECISIONS_MODULE,
        "if (step === maxSteps - 1) {\n                        stop('step_limit');",
        "if (false) {",
        f"{RUNNER_CHECKS}/check_decisions.py::test_choice_on_last_request_does_not_run",
        "RN-DEC-006",
    ),
    # A truthy done flag makes the done candidate.
    "truthy-done": NpmPatch(
        DECISIONS_MODULE,
        (
            ("(done !== undefined && done !== false && done !== true)) {", "false) {"),
            ("if (done === true) {", "if (done) {"),
        ),
        f"{RUNNER_CHECKS}/check_exact_booleans.py::test_truthy_done_flag_is_not_a_done_candidate",
        "RN-DEC-009",
    ),
    # The documented detail "original" is refused.
    "no-original-detail": NpmPatch.one(
        DECISIONS_MODULE,
        "['low', 'high', 'auto', 'original']",
        "['low', 'high', 'auto']",
        f"{RUNNER_CHECKS}/check_decisions_observations.py::test_documented_observation_forms_are_sent_as_given",
        "RN-DEC-010",
    ),
    # The runner keeps the application's observation parts instead of its own copy.
    "no-snapshot": NpmPatch.one(
        DECISIONS_MODULE,
        "const captured = structuredClone(entries);",
        "const captured = entries;",
        f"{RUNNER_CHECKS}/check_decisions_observations.py::test_runner_sends_its_own_snapshot",
        "RN-DEC-012",
    ),
    # The selected candidate is reported without its ID before dispatch.
    "anonymous-selection": NpmPatch.one(
        DECISIONS_MODULE,
        "{ api: 'decisions', stage: 'selection', reason: 'completed', call_id: selectedId }",
        "{ api: 'decisions', stage: 'selection', reason: 'completed', call_id: null }",
        f"{RUNNER_CHECKS}/check_decisions_diagnostics.py::test_decisions_reports_the_selected_id_before_dispatch",
        "RN-DIAG-002",
    ),
    # A truthy computer flag is accepted by the Responses runner at construction.
    "truthy-early-computer": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "(computer !== undefined && typeof computer !== 'boolean')",
        "false",
        f"{RUNNER_CHECKS}/check_exact_booleans.py::test_truthy_computer_flag_fails_construction",
        "RN-EARLY-007",
    ),
}

# The checkpoint ledger (RN-LEDGER-002..006) and the browser toolset's execute options (TS-CONF-010's
# ``cancelled``, TS-DIAG-001/002's ``on_diagnostic``) on the Node SDK, checked through the kit's mapping (tested
# directly in tests/node/test_node_sdk_ledger.py).
LEDGER: dict[str, NpmPatch] = {
    # Saving stops once a call has been attempted: nothing is saved after the first effect.
    "no-saves-after-effects": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "            const revision = ledger.revision + 1;",
        "            if (ledger.attempted_call_ids.length > 0) return;\n"
        "            const revision = ledger.revision + 1;",
        f"{RUNNER_CHECKS}/check_ledger.py::test_saves_surround_each_effect",
        "RN-LEDGER-002",
    ),
    # The save before an effect is dropped: the last save before a call does not show it attempted.
    "no-save-before-effect": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "        attempted.push(item.call_id);\n        await record?.();\n",
        "        attempted.push(item.call_id);\n",
        f"{RUNNER_CHECKS}/check_ledger.py::test_saves_surround_each_effect",
        "RN-LEDGER-005",
    ),
    # The save after an effect comes before the call is marked returned.
    "save-after-effect-too-early": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "        completed.push(item.call_id);\n        await record?.();\n        if (record && turn.browserFailed) {",
        "        await record?.();\n        completed.push(item.call_id);\n        if (record && turn.browserFailed) {",
        f"{RUNNER_CHECKS}/check_ledger.py::test_saves_surround_each_effect",
        "RN-LEDGER-006",
    ),
    # A checkpoint saved in the middle of a turn (phase pending) is resumed as a boundary without its unfinished turn.
    "resume-from-pending": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "        const resume = ledgerCopy(config.resumeFrom ?? null);",
        "        const saved = ledgerCopy(config.resumeFrom ?? null);\n"
        "        const resume = saved?.phase === 'pending' ? { ...saved, phase: 'boundary', pending_items: [], "
        "returned_outputs: [], attempted_call_ids: [], returned_call_ids: [] } : saved;",
        f"{RUNNER_CHECKS}/check_ledger.py::test_pending_checkpoint_is_never_resumable",
        "RN-LEDGER-003",
    ),
    # A resumed run counts its requests from zero again.
    "budget-restarts-on-resume": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "            consumed_requests: resume?.consumed_requests ?? 0,",
        "            consumed_requests: 0,",
        f"{RUNNER_CHECKS}/check_ledger.py::test_request_budget_survives_resume",
        "RN-LEDGER-004",
    ),
    # The toolset does not hand the call's signal to the driver method.
    "driver-without-signal": NpmPatch.one(
        BROWSER_MODULE,
        "                result = await handler(args, { signal });",
        "                result = await handler(args, {});",
        f"{TOOLSET_CHECKS}/check_confirmation.py::test_cancelled_passed_only_when_declared",
        "TS-CONF-010",
    ),
    # Diagnostic events carry an extra field.
    "diagnostic-extra-field": NpmPatch.one(
        DIAGNOSTICS_MODULE,
        "            member: event.member ?? null,",
        "            member: event.member ?? null,\n            tab: 'tab-1',",
        f"{TOOLSET_CHECKS}/check_diagnostics.py::test_browser_events_carry_only_documented_fields",
        "TS-DIAG-001",
    ),
    # The approval's diagnostic is awaited, so an observer that fails stops the action.
    "observer-failure-stops-action": NpmPatch.one(
        BROWSER_MODULE,
        "                    reportDiagnostic(observer, { api: 'browser', stage, reason: 'completed', call_id: "
        "snapshot.call_id, member }, started);",
        "                    await observer?.({ api: 'browser', stage, reason: 'completed', call_id: snapshot.call_id, "
        "member, duration_ms: 0, usage: null });",
        f"{TOOLSET_CHECKS}/check_diagnostics.py::test_raising_observer_changes_nothing",
        "TS-DIAG-002",
    ),
}


# Live streams, turns, cancellation and typed registrations (the loop group) on the Node SDK; the kit's own
# adaptations for them are tested directly in tests/node/test_node_sdk_loop.py.
LOOP: dict[str, NpmPatch] = {
    # A function call whose output item is still in progress (or incomplete) counts as completed: it passes the
    # item validation and dispatch (two places test the status; both take the widened list).
    "runs-unfinished-items": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "[undefined, null, 'completed'].includes(item.status)",
        "[undefined, null, 'completed', 'in_progress', 'incomplete'].includes(item.status)",
        f"{RUNNER_CHECKS}/check_live_streams.py::test_live_stream_outcome[live-call-in-progress-node-plain]",
        "RN-STREAM-008",
        everywhere=True,
    ),
    # Arguments that are not a JSON object reach the executor anyway (wrapped in an object).
    "executes-malformed-arguments": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "const args = JSON.parse(item.arguments);",
        "const args = (() => { try { const value = JSON.parse(item.arguments);"
        " return isObj(value) ? value : { value }; } catch { return { raw: item.arguments }; } })();",
        f"{RUNNER_CHECKS}/check_live_streams.py::test_live_stream_outcome[live-arguments-invalid-node-plain]",
        "RN-STREAM-009",
    ),
    # An incomplete response is inspected as if it had completed: its calls run and the run goes on.
    "acts-on-incomplete-responses": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "throw new RunnerValidationError('Response was not completed.');",
        "if (status !== 'incomplete') throw new RunnerValidationError('Response was not completed.');",
        f"{RUNNER_CHECKS}/check_live_streams.py::test_live_stream_outcome[live-response-incomplete-node-plain]",
        "RN-STREAM-010",
    ),
    # The client never retries, so a request failing with a retryable HTTP error stops the run.
    "never-retries": NpmPatch.one(
        "client.mjs",
        "async shouldRetry(response) {",
        "async shouldRetry(response) { return false;",
        f"{RUNNER_CHECKS}/check_live_streams.py::test_live_stream_outcome[live-http-error-then-retry-node-stream]",
        "RN-STREAM-012",
    ),
    # An incomplete response stops the run with the generic message instead of the fixed one naming it.
    "generic-incomplete-message": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "throw new RunnerValidationError('Response was not completed.');",
        "throw new Error('Response was not completed.');",
        f"{RUNNER_CHECKS}/check_live_streams.py::test_incomplete_response_message_names_it",
        "RN-ERR-002",
    ),
    # supplyOutputs accepts the outputs but keeps none, so the executor runs anyway.
    "supplied-outputs-dropped": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "supplied.set(id, output);",
        "void output;",
        f"{RUNNER_CHECKS}/check_turns.py::test_supplied_output_replaces_unattempted_function",
        "RN-TURN-001",
    ),
    # appendUserText's message goes before the turn's outputs instead of after them.
    "user-text-before-outputs": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "for (const item of [...toResponseInputItems(pending), ...outputs, ...userText]) {",
        "for (const item of [...toResponseInputItems(pending), ...userText, ...outputs]) {",
        f"{RUNNER_CHECKS}/check_turns.py::test_append_user_text_goes_after_outputs",
        "RN-TURN-002",
    ),
    # Closing the iterator at a turn (return()) first runs the turn's pending calls.
    "close-runs-pending": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "active = false;",
        "active = false; if (!final) for (const item of pending.slice(prefixLength)) await dispatch(item);",
        f"{RUNNER_CHECKS}/check_turns.py::test_closing_iterator_at_boundary_runs_nothing",
        "RN-TURN-003",
    ),
    # Dispatch ignores the run's signal: an aborted run goes on with the turn's next call.
    "dispatch-ignores-signal": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "options, signal, supplied, record) {",
        "options, ignored, supplied, record) { const signal = undefined;",
        f"{RUNNER_CHECKS}/check_turns.py::test_cancelled_predicate_stops_with_receipts",
        "RN-CANCEL-001",
    ),
    # A typed registration (runnerFunction) marked independent never joins a concurrency window.
    "typed-never-independent": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "if (independent === true) {",
        "if (independent === true && !execute[runnerFunctionStages]) {",
        f"{RUNNER_CHECKS}/check_concurrency.py::test_from_tool_registrations_can_be_independent",
        "RN-CONC-009",
    ),
    # Settling a window stops waiting once the run is aborted: the run ends while its started calls still run.
    "abort-without-draining": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "const results = await Promise.all(admitted);",
        "const results = await Promise.race([Promise.all(admitted), new Promise((_, reject) =>"
        " signal?.addEventListener('abort', () => reject(signal.reason)))]);",
        f"{RUNNER_CHECKS}/check_concurrency.py::test_async_cancellation_drains_started_independent_calls",
        "RN-CONC-010",
    ),
}

# The checks given a Node form last (they drove only the Python SDK's API before), on the Node SDK.
#
# One patch per Node form, so each new bridge capability is shown able to fail: a held Node runner's close and second
# run (RN-LIFE-001/002/003), a run without delivery options (RN-PARAM-002), a Decisions run's AbortSignal
# (RN-DEC-016), ComputerToolset's execute and run on a Node client (TS-COMP-013/014, TS-DIAG-003/004,
# RN-COMPACT-005/006), a promise-returning budget policy (RN-BUDGET-018), a custom Node input container
# (RN-BUDGET-021), return() on the iterate generator (RN-BUDGET-024), the client's logged event streams
# (RN-STREAM-015) and the scenario's recording browser consent (RN-EARLY-014).
NODE_FORMS: dict[str, NpmPatch] = {
    # close() says closed while a run is still active: the caller would release the environment under it.
    "responses-close-never-drains": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "        return this.lifecycle.close();",
        "        this.lifecycle.close();\n        return { status: 'closed' };",
        f"{RUNNER_CHECKS}/check_runner_lifecycle.py::test_responses_runner_close_drains_then_refuses",
        "RN-LIFE-001",
    ),
    "decisions-close-never-drains": NpmPatch.one(
        DECISIONS_MODULE,
        "        return this.lifecycle.close();",
        "        this.lifecycle.close();\n        return { status: 'closed' };",
        f"{RUNNER_CHECKS}/check_runner_lifecycle.py::test_decisions_runner_close_drains_then_refuses",
        "RN-LIFE-002",
    ),
    # A second run on a busy runner is admitted and interleaves with the first.
    "busy-runner-admits": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "        this.lifecycle.enter();",
        "        try {\n            this.lifecycle.enter();\n        }\n"
        "        catch (error) {\n            if (this.lifecycle.state !== 'busy') throw error;\n        }",
        f"{RUNNER_CHECKS}/check_runner_lifecycle.py::test_responses_runner_refuses_a_second_run_while_busy",
        "RN-LIFE-003",
    ),
    # Runs stream unless told not to.
    "streams-by-default": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "const streaming = options.stream === true;",
        "const streaming = options.stream !== false;",
        f"{RUNNER_CHECKS}/check_registration.py::test_runs_are_not_streamed_unless_asked",
        "RN-PARAM-002",
    ),
    # The Decisions runner no longer looks at its signal between steps.
    "decisions-ignore-signal": NpmPatch.one(
        DECISIONS_MODULE,
        "const signal = requestOptions.signal ?? undefined;",
        "const signal = undefined;",
        f"{RUNNER_CHECKS}/check_decisions_contract.py::test_cancelled_predicate_stops_requests_and_executors",
        "RN-DEC-016",
    ),
    # A screenshot naming a local file is inlined from the disk.
    "screenshot-reads-local-file": NpmPatch.one(
        COMPUTER_MODULE,
        "...(image_url === undefined ? {} : { image_url }),",
        "...(image_url === undefined ? {} : { image_url: /^(\\/|file:)/.test(image_url)"
        " ? `data:image/png;base64,${(await import('node:fs')).readFileSync(image_url.startsWith('file:')"
        " ? new URL(image_url) : image_url).toString('base64')}` : image_url }),",
        f"{TOOLSET_CHECKS}/check_computer_contract.py::test_screenshot_naming_a_local_file_is_not_read",
        "TS-COMP-013",
    ),
    # The loop forgets to send each call's observation back.
    "loop-drops-observations": NpmPatch.one(
        COMPUTER_MODULE,
        "                body.input.push(observation);",
        "                void observation;",
        f"{TOOLSET_CHECKS}/check_computer_contract.py::test_computer_run_loops_until_the_model_finishes",
        "TS-COMP-014",
    ),
    # The loop reports each request's usage to the diagnostic observer.
    "loop-reports-usage": NpmPatch.one(
        COMPUTER_MODULE,
        "            signal?.throwIfAborted();\n            const { calls, output } = computerCalls(",
        "            policy.onDiagnostic?.({ api: 'responses', stage: 'request', reason: 'completed',"
        " usage: response.usage });\n"
        "            signal?.throwIfAborted();\n            const { calls, output } = computerCalls(",
        f"{TOOLSET_CHECKS}/check_computer_usage.py::test_computer_run_reports_no_request_usage_to_its_observer",
        "TS-DIAG-003",
    ),
    # The loop returns a total over its requests as the response's usage.
    "loop-totals-usage": NpmPatch.one(
        COMPUTER_MODULE,
        "            if (calls.length === 0) {\n                return response;",
        "            if (calls.length === 0) {\n"
        "                return response.usage ? { ...response, usage: { ...response.usage,"
        " total_tokens: response.usage.total_tokens * (step + 1) } } : response;",
        f"{TOOLSET_CHECKS}/check_computer_usage.py::test_computer_run_returns_at_most_the_final_request_usage",
        "TS-DIAG-004",
    ),
    # The loop leaves the compaction item out of the replay.
    "loop-drops-compaction": NpmPatch.one(
        COMPUTER_MODULE,
        "                body.input.push(item);",
        "                if (item.type !== 'compaction') body.input.push(item);",
        f"{RUNNER_CHECKS}/check_compaction.py::test_computer_loop_accepts_compaction_and_replays_the_item",
        "RN-COMPACT-005",
    ),
    # The loop accepts a compaction item without its encrypted content.
    "loop-accepts-empty-compaction": NpmPatch.one(
        COMPUTER_MODULE,
        "throw new OpenAIError('ComputerToolset.run requires native compaction content before replay.');",
        "void item;",
        f"{RUNNER_CHECKS}/check_compaction.py::test_computer_loop_stops_on_a_malformed_compaction_item",
        "RN-COMPACT-006",
    ),
    # The runner uses the policy's promise as if it were the decision.
    "policy-not-awaited": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "const supplied = await budget.compact({",
        "const supplied = budget.compact({",
        f"{RUNNER_CHECKS}/check_budget_details.py::test_async_runner_awaits_an_async_policy",
        "RN-BUDGET-018",
    ),
    # Budget mode serializes the params first, reading (and accepting) a custom input container.
    "budget-reads-custom-input": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "const preparedParams = ledgerCopy(params, true);",
        "const preparedParams = ledgerCopy(JSON.parse(JSON.stringify(params)), true);",
        f"{RUNNER_CHECKS}/check_budget_details.py::test_budget_refuses_custom_input_containers_unread",
        "RN-BUDGET-021",
    ),
    # Leaving a turn (closing the iterator there too) asks the policy about the next request.
    "close-asks-policy": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "                        active = false;",
        "                        active = false;\n"
        "                        await contextBudget?.compact?.({ history: [], eligibleCallIds: [],"
        " inputBytes: 0, inputImages: 0 });",
        f"{RUNNER_CHECKS}/check_budget_turns.py::test_closing_an_iterator_never_calls_the_policy",
        "RN-BUDGET-024",
    ),
    # The stream is read by hand and neither closed nor aborted when the run stops reading it.
    "stream-left-open": NpmPatch(
        TOOL_RUNNER_MODULE,
        (
            (
                "            for await (const event of stream) {",
                "            const events = stream[Symbol.asyncIterator]();\n"
                "            for (let next = await events.next(); !next.done; next = await events.next()) {\n"
                "                const event = next.value;",
            ),
            ("        finally {\n            stream.abort();\n        }", "        finally {\n        }"),
        ),
        f"{RUNNER_CHECKS}/check_stream_closing.py",
        "RN-STREAM-015",
    ),
    # The browser toolset never asks confirm, early or not.
    "confirm-never-asked": NpmPatch.one(
        BROWSER_MODULE,
        "                confirm: !skip && requiresConsent(member)",
        "                confirm: false && requiresConsent(member)",
        f"{RUNNER_CHECKS}/check_early_consent.py",
        "RN-EARLY-014",
    ),
}

# The runner-state checks with a Node form, on the Node SDK (the Python SDK's patches:
# tests/test_sdk_findings_runner_state.py).
RUNNER_STATE: dict[str, NpmPatch] = {
    # Without Web Crypto the declaration is saved as given, raw URL included.
    "raw-url-without-webcrypto": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "throw new TypeError('MCP checkpoint storage requires Web Crypto SHA-256 support.');",
        "return registry;",
        f"{RUNNER_CHECKS}/check_node_webcrypto.py::test_no_raw_mcp_url_is_saved_without_webcrypto",
        "RN-MCP-016",
    ),
}

# The toolset checks added for the coverage gaps, on the Node SDK (the Python SDK's patches:
# tests/test_sdk_findings_toolset_gaps.py).
TOOLSET_GAPS: dict[str, NpmPatch] = {
    # Any string passes as a scroll direction.
    "any-direction": NpmPatch.one(
        BROWSER_MODULE,
        "direction: (value) => typeof value === 'string' && ['up', 'down', 'left', 'right'].includes(value),",
        "direction: (value) => typeof value === 'string',",
        f"{TOOLSET_CHECKS}/check_validation.py::test_value_past_the_limit_is_refused[node-scroll.direction-1]",
        "TS-VAL-013",
    ),
    # execute no longer looks at the call's status.
    "any-status": NpmPatch.one(
        BROWSER_MODULE,
        "            typeof snapshot.call_id !== 'string' ||\n            snapshot.status !== 'completed') {",
        "            typeof snapshot.call_id !== 'string') {",
        f"{TOOLSET_CHECKS}/check_validation.py::test_unfinished_call_is_refused_before_any_work",
        "TS-VAL-014",
    ),
    # The output names a shortened call ID, which no longer pairs with a long one.
    "cut-call-id": NpmPatch.one(
        BROWSER_MODULE,
        "output: { type: 'function_call_output', call_id: callId, output: content },",
        "output: { type: 'function_call_output', call_id: callId.slice(0, 64), output: content },",
        f"{TOOLSET_CHECKS}/check_results.py::test_output_carries_the_call_id",
        "TS-RES-018",
    ),
    # BROWSER_MEMBERS is an ordinary array a caller could edit.
    "editable-members": NpmPatch.one(
        BROWSER_MODULE,
        "export const BROWSER_MEMBERS = Object.freeze(",
        "export const BROWSER_MEMBERS = (",
        f"{TOOLSET_CHECKS}/check_selection.py::test_exported_member_tuples_are_the_documented_vocabulary",
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
        f"{TOOLSET_CHECKS}/check_confirmation.py::test_protected_read_without_confirm_never_runs",
        "TS-CONF-007",
    ),
    # confirmReads refuses read_diagnostics as if it changed something.
    "diagnostics-not-a-read": NpmPatch.one(
        BROWSER_MODULE,
        "[...reads].some((name) => members[name].changes) ||",
        "[...reads].some((name) => members[name].changes || name === 'read_diagnostics') ||",
        f"{TOOLSET_CHECKS}/check_confirmation.py::test_read_diagnostics_is_a_protectable_read_on_node",
        "TS-CONF-013",
    ),
    # BrowserError no longer names itself: its instances say Error, like any other failure.
    "unnamed-browser-error": NpmPatch.one(
        BROWSER_MODULE,
        "        this.name = 'BrowserError';\n",
        "",
        f"{TOOLSET_CHECKS}/check_results.py::test_browser_errors_report_one_stable_name",
        "TS-RES-019",
    ),
    # The scroll amount is declared from 1 (the validator still takes 0).
    "amount-from-one": NpmPatch.one(
        BROWSER_MODULE,
        "amount: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },",
        "amount: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },",
        f"{TOOLSET_CHECKS}/check_schemas.py::test_declared_field_schemas_match_the_field_kinds",
        "TS-SCHEMA-005",
    ),
    # Driver methods must answer with a promise: a plain answer fails the call.
    "promises-only": NpmPatch.one(
        BROWSER_MODULE,
        "result = await handler(args, { signal });",
        "result = await handler(args, { signal }).then((value) => value);",
        f"{TOOLSET_CHECKS}/check_plain_answers.py::test_node_honours_plain_answers",
        "TS-FLAV-003",
    ),
    # A null element value is taken as no value instead of being refused.
    "null-value-ignored": NpmPatch.one(
        BROWSER_MODULE,
        "if (fieldValue !== undefined) {",
        "if (fieldValue != null) {",
        f"{TOOLSET_CHECKS}/check_results.py::test_node_rejects_null_optional_read_fields[node-value]",
        "TS-RES-020",
    ),
    # The computer toolset reports closed at once, even while an approval callback is pending.
    "closed-under-approval": NpmPatch.one(
        COMPUTER_MODULE,
        "    close() {\n        return this.lifecycle.close();\n    }",
        "    close() {\n        this.lifecycle.close();\n        return { status: 'closed' };\n    }",
        f"{TOOLSET_CHECKS}/check_lifecycle.py::test_computer_close_drains_while_a_stopped_runs_approval_is_pending",
        "TS-LIFE-004",
    ),
}

# The family: its catalogue.
CATALOGUES: dict[str, Catalogue] = {
    "basics": Catalogue(BASICS),
    "computer": Catalogue(COMPUTER),
    "coverage_gaps": Catalogue(COVERAGE_GAPS),
    "decisions": Catalogue(DECISIONS),
    # The unpatched run also certifies the whole ledger, MCP resume, confirmation and diagnostics checks.
    "ledger": Catalogue(
        LEDGER,
        more_checks=(
            f"{RUNNER_CHECKS}/check_ledger.py",
            f"{RUNNER_CHECKS}/check_mcp.py",
            f"{TOOLSET_CHECKS}/check_confirmation.py",
            f"{TOOLSET_CHECKS}/check_diagnostics.py",
        ),
        more_clauses=("RN-MCP-006",),
    ),
    "loop": Catalogue(LOOP),
    "node_forms": Catalogue(NODE_FORMS),
    "runner_state": Catalogue(RUNNER_STATE),
    "toolset_gaps": Catalogue(TOOLSET_GAPS),
}
