"""The checks given a Node form last (they drove only the Python SDK's API before) fail on a Node SDK with the
matching defect: each patch plants one defect in a copy of npm ``openai`` (tests/node/npm_patches.py) and the check
must blame exactly its clause, while an unpatched copy passes the same checks.

One patch per Node form, so each new bridge capability is shown able to fail: a held Node runner's close and second
run (RN-LIFE-001/002/003), a run without delivery options (RN-PARAM-002), a Decisions run's AbortSignal
(RN-DEC-016), ComputerToolset's execute and run on a Node client (TS-COMP-013/014, TS-DIAG-003/004,
RN-COMPACT-005/006), a promise-returning budget policy (RN-BUDGET-018), a custom Node input container
(RN-BUDGET-021), return() on the iterate generator (RN-BUDGET-024), the client's logged event streams
(RN-STREAM-015) and the scenario's recording browser consent (RN-EARLY-014).
"""

from __future__ import annotations

import pytest

from tests.node.npm_patches import (
    BROWSER_MODULE,
    COMPUTER_MODULE,
    DECISIONS_MODULE,
    TOOL_RUNNER_MODULE,
    NpmPatch,
    patched_copies_fail_exactly_their_clause,
    unpatched_copy_passes,
)

# What this module starts (tests/process_kinds.py): scripts/test.sh --quick leaves it out.
pytestmark = [pytest.mark.child_run, pytest.mark.node]

RUNNERS = "conformance/contracts/runner"
TOOLSETS = "conformance/contracts/toolset"
LIFECYCLE = f"{RUNNERS}/check_runner_lifecycle.py"

PATCHES: dict[str, NpmPatch] = {
    # close() says closed while a run is still active: the caller would release the environment under it.
    "responses-close-never-drains": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "        return this.lifecycle.close();",
        "        this.lifecycle.close();\n        return { status: 'closed' };",
        f"{LIFECYCLE}::test_responses_runner_close_drains_then_refuses",
        "RN-LIFE-001",
    ),
    "decisions-close-never-drains": NpmPatch.one(
        DECISIONS_MODULE,
        "        return this.lifecycle.close();",
        "        this.lifecycle.close();\n        return { status: 'closed' };",
        f"{LIFECYCLE}::test_decisions_runner_close_drains_then_refuses",
        "RN-LIFE-002",
    ),
    # A second run on a busy runner is admitted and interleaves with the first.
    "busy-runner-admits": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "        this.lifecycle.enter();",
        "        try {\n            this.lifecycle.enter();\n        }\n"
        "        catch (error) {\n            if (this.lifecycle.state !== 'busy') throw error;\n        }",
        f"{LIFECYCLE}::test_responses_runner_refuses_a_second_run_while_busy",
        "RN-LIFE-003",
    ),
    # Runs stream unless told not to.
    "streams-by-default": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "const streaming = options.stream === true;",
        "const streaming = options.stream !== false;",
        f"{RUNNERS}/check_registration.py::test_runs_are_not_streamed_unless_asked",
        "RN-PARAM-002",
    ),
    # The Decisions runner no longer looks at its signal between steps.
    "decisions-ignore-signal": NpmPatch.one(
        DECISIONS_MODULE,
        "const signal = requestOptions.signal ?? undefined;",
        "const signal = undefined;",
        f"{RUNNERS}/check_decisions_contract.py::test_cancelled_predicate_stops_requests_and_executors",
        "RN-DEC-016",
    ),
    # A screenshot naming a local file is inlined from the disk.
    "screenshot-reads-local-file": NpmPatch.one(
        COMPUTER_MODULE,
        "...(image_url === undefined ? {} : { image_url }),",
        "...(image_url === undefined ? {} : { image_url: /^(\\/|file:)/.test(image_url)"
        " ? `data:image/png;base64,${(await import('node:fs')).readFileSync(image_url.startsWith('file:')"
        " ? new URL(image_url) : image_url).toString('base64')}` : image_url }),",
        f"{TOOLSETS}/check_computer_contract.py::test_screenshot_naming_a_local_file_is_not_read",
        "TS-COMP-013",
    ),
    # The loop forgets to send each call's observation back.
    "loop-drops-observations": NpmPatch.one(
        COMPUTER_MODULE,
        "                body.input.push(observation);",
        "                void observation;",
        f"{TOOLSETS}/check_computer_contract.py::test_computer_run_loops_until_the_model_finishes",
        "TS-COMP-014",
    ),
    # The loop reports each request's usage to the diagnostic observer.
    "loop-reports-usage": NpmPatch.one(
        COMPUTER_MODULE,
        "            signal?.throwIfAborted();\n            const { calls, output } = computerCalls(",
        "            policy.onDiagnostic?.({ api: 'responses', stage: 'request', reason: 'completed',"
        " usage: response.usage });\n"
        "            signal?.throwIfAborted();\n            const { calls, output } = computerCalls(",
        f"{TOOLSETS}/check_computer_usage.py::test_computer_run_reports_no_request_usage_to_its_observer",
        "TS-DIAG-003",
    ),
    # The loop returns a total over its requests as the response's usage.
    "loop-totals-usage": NpmPatch.one(
        COMPUTER_MODULE,
        "            if (calls.length === 0) {\n                return response;",
        "            if (calls.length === 0) {\n"
        "                return response.usage ? { ...response, usage: { ...response.usage,"
        " total_tokens: response.usage.total_tokens * (step + 1) } } : response;",
        f"{TOOLSETS}/check_computer_usage.py::test_computer_run_returns_at_most_the_final_request_usage",
        "TS-DIAG-004",
    ),
    # The loop leaves the compaction item out of the replay.
    "loop-drops-compaction": NpmPatch.one(
        COMPUTER_MODULE,
        "                body.input.push(item);",
        "                if (item.type !== 'compaction') body.input.push(item);",
        f"{RUNNERS}/check_compaction.py::test_computer_loop_accepts_compaction_and_replays_the_item",
        "RN-COMPACT-005",
    ),
    # The loop accepts a compaction item without its encrypted content.
    "loop-accepts-empty-compaction": NpmPatch.one(
        COMPUTER_MODULE,
        "throw new OpenAIError('ComputerToolset.run requires native compaction content before replay.');",
        "void item;",
        f"{RUNNERS}/check_compaction.py::test_computer_loop_stops_on_a_malformed_compaction_item",
        "RN-COMPACT-006",
    ),
    # The runner uses the policy's promise as if it were the decision.
    "policy-not-awaited": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "const supplied = await budget.compact({",
        "const supplied = budget.compact({",
        f"{RUNNERS}/check_budget_details.py::test_async_runner_awaits_an_async_policy",
        "RN-BUDGET-018",
    ),
    # Budget mode serializes the params first, reading (and accepting) a custom input container.
    "budget-reads-custom-input": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "const preparedParams = ledgerCopy(params, true);",
        "const preparedParams = ledgerCopy(JSON.parse(JSON.stringify(params)), true);",
        f"{RUNNERS}/check_budget_details.py::test_budget_refuses_custom_input_containers_unread",
        "RN-BUDGET-021",
    ),
    # Leaving a turn (closing the iterator there too) asks the policy about the next request.
    "close-asks-policy": NpmPatch.one(
        TOOL_RUNNER_MODULE,
        "                        active = false;",
        "                        active = false;\n"
        "                        await contextBudget?.compact?.({ history: [], eligibleCallIds: [],"
        " inputBytes: 0, inputImages: 0 });",
        f"{RUNNERS}/check_budget_turns.py::test_closing_an_iterator_never_calls_the_policy",
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
        f"{RUNNERS}/check_stream_closing.py",
        "RN-STREAM-015",
    ),
    # The browser toolset never asks confirm, early or not.
    "confirm-never-asked": NpmPatch.one(
        BROWSER_MODULE,
        "                confirm: !skip && requiresConsent(member)",
        "                confirm: false && requiresConsent(member)",
        f"{RUNNERS}/check_early_consent.py",
        "RN-EARLY-014",
    ),
}


test_a_patched_node_sdk_fails_exactly_its_clause = patched_copies_fail_exactly_their_clause(PATCHES)


test_an_unpatched_copy_passes_the_same_checks = unpatched_copy_passes(PATCHES)
