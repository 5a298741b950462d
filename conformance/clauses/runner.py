"""Runner clauses (RN-*): what the SDK's Responses and Decisions runners promise, checked by
conformance/contracts/runner over recorded Responses traffic.

Sections cited: in "Browser and mixed Responses tools", "Mix browser, computer, and ordinary functions",
"Streaming and interrupted actions", "Choose which tools can run early", "Bound the native input sent on each
request" and "Selecting guarded actions with Decisions"; in "Browser and desktop drivers", "Mix browser actions
with other tools" and the parts after it ("Handle failures", "Stream and resume"). Summaries are the kit's paraphrase.
"""

from __future__ import annotations

from conformance.clauses import Clause

MIX = "Mix browser, computer, and ordinary functions"
STREAMING = "Streaming and interrupted actions"
EARLY = "Choose which tools can run early"
BUDGET = "Bound the native input sent on each request"
DECISIONS = "Selecting guarded actions with Decisions"
D_MIX = "Mix browser actions with other tools"
D_FAIL = "Handle failures"
D_STREAM = "Stream and resume"
D_APPROVE = "Approve actions and own the session"


def _c(clause_id: str, spec: str, section: str, summary: str) -> Clause:
    return Clause(clause_id, spec, section, summary)


CLAUSES: tuple[Clause, ...] = (
    # Loop basics and modes
    _c("RN-LOOP-001", "000", MIX, "A registered function receives its decoded arguments and its output is sent back."),
    _c("RN-LOOP-002", "000", STREAMING, "Outputs of several calls in one response are written in original call order."),
    _c("RN-LOOP-003", "000", STREAMING, "Sync and async runners, plain and streamed runs give the same semantics."),
    _c("RN-LOOP-004", "000", MIX, "A response with only a final message ends the run with no local effect."),
    # Streaming and eager execution
    _c("RN-STREAM-001", "000", STREAMING, "Without eager, streamed calls run only after the completed response."),
    _c("RN-STREAM-002", "000", STREAMING, "With eager, a call starts when its completed output-item event arrives."),
    _c("RN-STREAM-003", "000", MIX, "After a gap or out-of-order index, the suffix waits for the completed response."),
    _c("RN-STREAM-004", "000", STREAMING, "If a later event changes an executed item, the run stops keeping receipts."),
    _c("RN-STREAM-005", "000", STREAMING, "A stream failure after executed calls keeps attempted/completed call IDs."),
    _c("RN-STREAM-006", "000", STREAMING, "The runner never executes the same completed output item twice."),
    _c("RN-STREAM-007", "000", STREAMING, "on_event receives the SDK stream events of a streamed run."),
    # Early execution policy
    _c("RN-EARLY-001", "000", EARLY, "early_execution limits eager starts to the listed function wire names."),
    _c("RN-EARLY-002", "000", EARLY, "An empty early_execution policy defers every local tool to the boundary."),
    _c("RN-EARLY-003", "000", EARLY, "The first deferred tool holds all later items, in their original order."),
    _c("RN-EARLY-004", "000", EARLY, "The computer flag selects the native computer dispatcher for early starts."),
    _c("RN-EARLY-005", "000", EARLY, "before_early_call may defer an allowed early call, holding the suffix."),
    _c("RN-EARLY-006", "000", EARLY, "before_early_call must answer execute or defer; anything else stops."),
    _c("RN-CONC-001", "000", EARLY, "Independent eager calls overlap at most max_concurrent_calls at a time."),
    _c("RN-CONC-002", "000", EARLY, "With a ledger, independent calls run one at a time."),
    _c("RN-CONC-003", "000", EARLY, "A full window's calls all finish and are recorded before more events are read."),
    _c("RN-CONC-004", "000", EARLY, "max_concurrent_calls defaults to 2; a limit of 1 runs them one after another."),
    _c(
        "RN-CONC-005",
        "000",
        EARLY,
        "A browser, computer or dependent call, a deferral or the completed turn waits for started ones.",
    ),
    _c("RN-CONC-006", "000", EARLY, "Only independent calls of eager ledger-free runs overlap; the rest is serial."),
    _c("RN-CONC-007", "000", EARLY, "Outputs keep the original call order even when a later call finishes first."),
    _c("RN-CONC-008", "000", EARLY, "When an independent call fails the run stops, reporting every completed sibling."),
    _c("RN-CONC-009", "000", EARLY, "Both from_tool variants accept independent; such functions join the windows."),
    _c(
        "RN-CONC-010",
        "000",
        STREAMING,
        "Cancelling an async run, even repeatedly, returns only after started independent calls are drained.",
    ),
    # Server tools, tool_choice, params
    _c("RN-SERVER-001", "000", MIX, "Declared server tools force local calls to wait for the full response."),
    _c("RN-SERVER-002", "000", MIX, "A failed or undeclared server result stops further local effects."),
    _c("RN-SERVER-003", "000", MIX, "store=False with image_generation is rejected before any request or call."),
    _c("RN-CHOICE-001", "000", MIX, "A tool_choice that always forces a local tool is rejected before any request."),
    _c("RN-CHOICE-002", "000", MIX, "tool_choice is preserved on every request; required with a server tool works."),
    _c("RN-PARAM-001", "000", STREAMING, "previous_response_id, conversation, background, stream params are rejected."),
    # Steps and failures
    _c("RN-STEPS-001", "000", STREAMING, "The final allowed request starts no local effect; the run stops instead."),
    _c("RN-STEPS-002", "002", D_FAIL, "Without max_steps the runner sends at most 20 requests."),
    _c("RN-BROWSER-001", "002", D_FAIL, "After a browser failure, later browser calls in that response are skipped."),
    _c("RN-BROWSER-002", "002", D_FAIL, "The model may call the browser again on the next turn after a failure."),
    _c("RN-ERR-001", "000", STREAMING, "An API failure keeps a generic message and the call receipts."),
    # Ledger
    _c("RN-LEDGER-001", "000", BUDGET, "Every checkpoint is detached and complete, with all 14 documented fields."),
    _c("RN-LEDGER-002", "000", BUDGET, "Checkpoints are saved before and after each local effect."),
    _c("RN-LEDGER-003", "002", D_STREAM, "Resume only from a completed boundary; pending checkpoints are refused."),
    _c("RN-LEDGER-004", "002", D_STREAM, "The request budget and completed history survive resume."),
    # Context budget
    _c("RN-BUDGET-001", "000", BUDGET, "Over the limit, the policy is called once with eligible call IDs."),
    _c("RN-BUDGET-002", "000", BUDGET, "Dropped calls leave receipts and the summary; other items keep their order."),
    _c("RN-BUDGET-003", "000", BUDGET, "Messages and the latest browser state are never eligible for dropping."),
    _c("RN-BUDGET-004", "000", BUDGET, "A missing or invalid policy stops the run before any further request."),
    _c(
        "RN-BUDGET-005",
        "000",
        BUDGET,
        "Image blocks in messages and function outputs and each computer screenshot count, by file ID or URL too.",
    ),
    _c("RN-BUDGET-006", "000", BUDGET, "Input over only the image limit gets one policy call before that request."),
    _c(
        "RN-BUDGET-007",
        "000",
        BUDGET,
        "The latest computer call/output pair and computer calls with safety checks are never eligible.",
    ),
    _c(
        "RN-BUDGET-008",
        "000",
        BUDGET,
        "The newest keep_recent_screenshots screenshots (default 1) stay pinned; older ones are eligible.",
    ),
    _c(
        "RN-BUDGET-009",
        "000",
        BUDGET,
        "Function images count toward the image limit but are not screenshots kept by keep_recent_screenshots.",
    ),
    _c(
        "RN-BUDGET-010",
        "000",
        BUDGET,
        "If the policy leaves too many images, the run stops: no request, no admission, no further tools.",
    ),
    # MCP
    _c("RN-MCP-001", "000", MIX, "approve_mcp answers are paired with the original approval request ID."),
    _c("RN-MCP-002", "000", MIX, "A missing approve_mcp callback never grants access."),
    _c("RN-MCP-003", "000", MIX, "A later MCP call must match the approved server, name and arguments."),
    _c("RN-MCP-004", "000", MIX, "Approval is required by default; an empty never filter applies to every tool."),
    _c("RN-MCP-005", "000", MIX, "Requests declaring MCP tools are not retried automatically."),
    _c(
        "RN-MCP-006",
        "000",
        MIX,
        "Approved requests without a completed call are asked again before the first request.",
    ),
    # Turns
    _c(
        "RN-TURN-001",
        "000",
        EARLY,
        "supply_outputs replaces an unattempted override-enabled function, never a browser call.",
    ),
    _c(
        "RN-TURN-002",
        "000",
        BUDGET,
        "append_user_text adds a user message after that turn's outputs; final turns refuse.",
    ),
    _c("RN-TURN-003", "000", EARLY, "Closing iterate() at a boundary runs no pending tools and sends no request."),
    # Idempotency keys (Responses and Decisions runs)
    _c("RN-IDEM-001", "000", MIX, "A fixed caller-supplied idempotency key is sent on the run's first request."),
    _c("RN-IDEM-002", "000", MIX, "Each later turn sends a fresh idempotency key, not the caller's or a reused one."),
    _c("RN-IDEM-003", "000", MIX, "An HTTP retry of one request repeats that request's idempotency key."),
    # Diagnostics and cancellation
    _c("RN-DIAG-001", "000", STREAMING, "Each completed request emits a diagnostic with native usage."),
    _c(
        "RN-DIAG-002",
        "000",
        STREAMING,
        "Decisions reports the selected candidate ID before its executor runs, even if the executor raises.",
    ),
    _c(
        "RN-DIAG-003",
        "000",
        STREAMING,
        "Each diagnostic has exactly api, stage, reason, duration_ms, call_id, member and usage.",
    ),
    _c(
        "RN-DIAG-004",
        "000",
        STREAMING,
        "No diagnostic carries arguments, page text, URLs, screenshots, credentials or exception text.",
    ),
    _c("RN-DIAG-005", "000", STREAMING, "Diagnostic usage is the native token counts if supplied, else None."),
    _c("RN-DIAG-006", "000", STREAMING, "A failing on_diagnostic callback cannot change approvals or results."),
    _c("RN-CANCEL-001", "000", STREAMING, "A true cancelled predicate stops the run with the call receipts."),
    _c(
        "RN-CANCEL-002",
        "000",
        STREAMING,
        "Async task cancellation surfaces as ToolRunnerCancelledError with receipts.",
    ),
    # Computer safety checks and action approval, as the mixed runner applies them
    _c(
        "RN-SAFETY-001",
        "000",
        MIX,
        "A computer call with pending safety checks gets one approve_safety_checks call, with that call and its "
        "checks, before any of its actions.",
    ),
    _c(
        "RN-SAFETY-002",
        "000",
        MIX,
        "After approval the next request replays the call with its checks and its output acknowledges each one.",
    ),
    _c(
        "RN-SAFETY-003",
        "002",
        D_APPROVE,
        "A missing approve_safety_checks or any answer but exactly True stops the run before any computer "
        "action, later call or further request.",
    ),
    _c(
        "RN-SAFETY-004",
        "000",
        STREAMING,
        "A computer call stopped by a refusal is never completed, is attempted once one of its actions ran, "
        "and earlier calls keep their receipts.",
    ),
    _c(
        "RN-SAFETY-005",
        "002",
        D_APPROVE,
        "before_action receives each action of the call in order, final screenshot included, just before it runs.",
    ),
    _c(
        "RN-SAFETY-006",
        "002",
        D_APPROVE,
        "A before_action refusal prevents that action and every later one, and stops the run.",
    ),
    _c(
        "RN-SAFETY-007",
        "000",
        MIX,
        "Approval callbacks declaring keyword-only cancelled get the run's cancellation probe; one-argument "
        "callbacks still work.",
    ),
    _c(
        "RN-SAFETY-008",
        "000",
        MIX,
        "Once cancellation is reported during an approval callback, no further action, call or request runs.",
    ),
    _c(
        "RN-SAFETY-009",
        "000",
        MIX,
        "A run stopped during computer approval leaves its computer toolset released, not busy or draining.",
    ),
    _c(
        "RN-SAFETY-010",
        "000",
        EARLY,
        "A computer call started early, even after before_early_call says execute, still runs approve_safety_checks "
        "and before_action before each effect.",
    ),
    _c(
        "RN-SAFETY-011",
        "000",
        EARLY,
        "A computer call held for the completed response (flag off, declared server tool) asks approval only then.",
    ),
    _c(
        "RN-SAFETY-012",
        "000",
        MIX,
        "Editing the call or action a callback receives changes neither the action run nor the replayed history.",
    ),
    # Decisions
    _c("RN-DEC-001", "000", DECISIONS, "Only verify returning True on a fresh observation gives verified."),
    _c("RN-DEC-002", "000", DECISIONS, "Without a verifier, choosing done gives unverified."),
    _c("RN-DEC-003", "000", DECISIONS, "A model refusal gives refused."),
    _c("RN-DEC-004", "000", DECISIONS, "One done-only candidate ends locally without an API request."),
    _c("RN-DEC-005", "000", DECISIONS, "Candidates need unique IDs, one done choice, and 2 to 255 entries."),
    _c(
        "RN-DEC-006",
        "000",
        DECISIONS,
        "max_steps counts Decisions requests; a choice on the last request does not run.",
    ),
    _c("RN-DEC-007", "000", DECISIONS, "Each request carries only the task and the current observation."),
    _c("RN-DEC-008", "000", DECISIONS, "After failed verification another choice is possible while requests remain."),
    # Streams in the shape of real traffic (deltas, item lifecycles, faults)
    _c(
        "RN-STREAM-008",
        "000",
        STREAMING,
        "Only a call whose output item completed runs; a call left in_progress or incomplete never runs.",
    ),
    _c(
        "RN-STREAM-009",
        "000",
        MIX,
        "Truncated, non-JSON or non-object arguments never reach the executor, in any mode.",
    ),
    _c(
        "RN-STREAM-010",
        "000",
        STREAMING,
        "An incomplete or failed response sends no further request; only eager calls already started may have run.",
    ),
    _c(
        "RN-STREAM-011",
        "000",
        STREAMING,
        "A stream that ends inside an event stops the run with no further request and no call from the cut item.",
    ),
    _c(
        "RN-STREAM-012",
        "000",
        MIX,
        "Without MCP tools a request failing with a retryable HTTP error is retried and the run goes on unchanged.",
    ),
    _c(
        "RN-ERR-002",
        "000",
        STREAMING,
        "An incomplete response stops the run with a fixed message naming it, not the generic API-failure message.",
    ),
    # Exact Booleans
    _c("RN-MCP-007", "000", MIX, "An approve_mcp answer other than exactly True never grants access."),
    _c("RN-DEC-009", "000", DECISIONS, "Only done exactly True marks the done candidate; a truthy done is refused."),
    _c("RN-EARLY-007", "000", EARLY, "The early_execution computer flag must be a Boolean; else construction fails."),
    # Decisions observations
    _c(
        "RN-DEC-010",
        "000",
        DECISIONS,
        "An observation is text or an iterable of input_text and inline input_image parts, sent as given.",
    ),
    _c(
        "RN-DEC-011",
        "000",
        DECISIONS,
        "External image URLs, file IDs and other part types are refused before any request.",
    ),
    _c(
        "RN-DEC-012",
        "000",
        DECISIONS,
        "The runner sends its own snapshot: later edits to the observation or the copy callbacks get change nothing.",
    ),
    # Strict ledger evidence
    _c(
        "RN-LEDGER-005",
        "000",
        BUDGET,
        "The save just before an effect records the call as attempted with its item in the observed prefix.",
    ),
    _c(
        "RN-LEDGER-006",
        "000",
        BUDGET,
        "The save just after an effect records that call's output and marks it returned.",
    ),
)
