"""The builder source of every runner cassette committed under ``fixtures/streams/``.

The committed JSONL files are what the checks load; this module is how they were made, so a reviewer can read a
scenario in a few lines and ``python -m tools.cassettes --write`` regenerates them.
``tests/tools/test_cassette_sources.py`` fails if a committed file drifts from its source.

Convention: every function call passes its own call ID as ``reference``, so the harness timeline shows which
call ran (``call:lookup:c1``).
"""

from __future__ import annotations

from conformance import resources
from conformance.cassette_builder import (
    CassetteBuilder,
    computer_call,
    function_call,
    image_generation_call,
    mcp_approval_request,
    mcp_call,
    message,
    reasoning,
    web_search_call,
)
from conformance.cassettes import JSONObject
from conformance.contracts.runner._scenario import (
    PRIVATE_API_ERROR,
    PRIVATE_ARGUMENT,
    PRIVATE_CLICK_TARGET,
)
from tools.cassettes.registry import SourceRegistry

RUNNER = SourceRegistry(resources.streams())
source = RUNNER.source


def call(name: str, call_id: str) -> dict[str, object]:
    return function_call(name, {"reference": call_id}, call_id=call_id)


def page_text(call_id: str) -> dict[str, object]:
    return function_call("browser_get_page_text", {"tab_id": None}, call_id=call_id)


def click(call_id: str) -> dict[str, object]:
    return function_call("browser_click", {"target": call_id, "tab_id": None}, call_id=call_id)


def _b(name: str, description: str) -> CassetteBuilder:
    return CassetteBuilder(name, description=description)


# ------------------------------------------------------------------------------------------ basics


@source("final-message")
def _final_message() -> CassetteBuilder:
    return _b("final-message", "The model answers at once; no local effects.").turn(message("Hello."))


@source("one-function")
def _one_function() -> CassetteBuilder:
    return (
        _b("one-function", "One function call, then a final answer.").turn(call("lookup", "c1")).turn(message("Done."))
    )


@source("two-functions-order")
def _two_functions() -> CassetteBuilder:
    return (
        _b("two-functions-order", "Two calls in one response; outputs must follow the original call order.")
        .turn(call("lookup", "c1"), call("note", "c2"))
        .turn(message("Done."))
    )


@source("function-then-message-same-turn")
def _eager_item() -> CassetteBuilder:
    return (
        _b("function-then-message-same-turn", "A call followed by commentary in the same response (eager start).")
        .turn(call("lookup", "c1"), message("Working on it.", item_id="msg_c", phase="commentary"))
        .turn(message("Done."))
    )


# ------------------------------------------------------------------------------------------ early execution


@source("browser-then-function")
def _browser_then_function() -> CassetteBuilder:
    return (
        _b("browser-then-function", "A browser read then an ordinary function in one response.")
        .turn(page_text("c1"), call("lookup", "c2"))
        .turn(message("Done."))
    )


@source("function-then-browser")
def _function_then_browser() -> CassetteBuilder:
    return (
        _b("function-then-browser", "An ordinary function then a browser read: a deferral holds the suffix.")
        .turn(call("lookup", "c1"), page_text("c2"))
        .turn(message("Done."))
    )


@source("computer-then-function")
def _computer_then_function() -> CassetteBuilder:
    return (
        _b("computer-then-function", "A native computer click, then an ordinary function, in one response.")
        .turn(computer_call({"type": "click", "x": 10, "y": 20, "button": "left"}, call_id="c1"), call("lookup", "c2"))
        .turn(message("Done."))
    )


@source("three-independent")
def _three_independent() -> CassetteBuilder:
    return (
        _b("three-independent", "Three independent function calls in one response.")
        .turn(call("slow", "c1"), call("slow", "c2"), call("slow", "c3"))
        .turn(message("Done."))
    )


# ------------------------------------------------------------------------------------------ stream faults


@source("out-of-order-indices")
def _out_of_order() -> CassetteBuilder:
    return (
        _b("out-of-order-indices", "Items arrive as index 1 then index 0.")
        .turn(call("note", "c2"), call("lookup", "c1"), indices=[1, 0])
        .turn(message("Done."))
    )


@source("gap-in-indices")
def _gap() -> CassetteBuilder:
    return (
        _b("gap-in-indices", "The done event for index 1 never arrives; index 2 follows index 0.")
        .turn(call("lookup", "c1"), call("note", "c2"), call("lookup", "c3"))
        .fault("drop_event", sequence=2)
        .turn(message("Done."))
    )


@source("duplicate-index")
def _duplicate() -> CassetteBuilder:
    return (
        _b("duplicate-index", "Two different items both claim output index 0.")
        .turn(call("lookup", "c1"), call("note", "c2"))
        .fault("output_index", sequence=2, output_index=0)
        .turn(message("Done."))
    )


@source("completed-disagrees")
def _disagrees() -> CassetteBuilder:
    return (
        _b("completed-disagrees", "The completed response carries other arguments than the streamed item.")
        .turn(call("lookup", "c1"))
        .fault(
            "completed_output",
            output=[function_call("lookup", {"reference": "changed"}, call_id="c1")],
        )
        .turn(message("Done."))
    )


@source("stream-cut-after-call")
def _cut() -> CassetteBuilder:
    return (
        _b("stream-cut-after-call", "The stream ends after the first call's done event, without completion.")
        .turn(call("lookup", "c1"), call("note", "c2"))
        .fault("cut_stream", after_sequence=1)
    )


@source("stream-dropped-after-call")
def _dropped() -> CassetteBuilder:
    return (
        _b("stream-dropped-after-call", "The connection breaks after the first call's done event.")
        .turn(call("lookup", "c1"), call("note", "c2"))
        .fault("cut_stream", after_sequence=1, error=True)
    )


@source("response-failed")
def _failed() -> CassetteBuilder:
    return _b("response-failed", "The response fails after streaming a call.").turn(
        call("lookup", "c1"), status="failed"
    )


@source("http-error-second-request")
def _http_error() -> CassetteBuilder:
    return (
        _b("http-error-second-request", "One call, then the second request fails with HTTP 500.")
        .turn(call("lookup", "c1"))
        .http_error(500)
    )


# ------------------------------------------------------------------------------------------ server tools


@source("server-tool-boundary")
def _server_boundary() -> CassetteBuilder:
    return (
        _b("server-tool-boundary", "A declared web search result next to a local call.")
        .turn(web_search_call("ws_1"), call("lookup", "c1"))
        .turn(message("Done."))
    )


@source("server-tool-failed")
def _server_failed() -> CassetteBuilder:
    return _b("server-tool-failed", "A failed web search result next to a local call.").turn(
        call("lookup", "c1"), web_search_call("ws_1", status="failed")
    )


@source("server-tool-undeclared")
def _server_undeclared() -> CassetteBuilder:
    # The server result comes first so even an eager run has not started the later local call.
    return _b("server-tool-undeclared", "A web search result the request never declared, then a local call.").turn(
        web_search_call("ws_1"), call("lookup", "c1")
    )


@source("image-generation-stored")
def _image_generation() -> CassetteBuilder:
    return (
        _b("image-generation-stored", "An image generation result, then a local call, with storage on.")
        .turn(image_generation_call("ig_1"), call("lookup", "c1"))
        .turn(message("Done."))
    )


@source("required-choice-with-server-tool")
def _required_choice() -> CassetteBuilder:
    return (
        _b("required-choice-with-server-tool", "tool_choice required with a declared server tool: two turns.")
        .turn(web_search_call("ws_1"), call("lookup", "c1"))
        .turn(message("Done."))
    )


@source("never-served")
def _never_served() -> CassetteBuilder:
    return (
        _b("never-served", "A turn the runner must never request (the run is rejected first).")
        .turn(call("lookup", "c1"))
        .turn(message("Done."))
    )


# ------------------------------------------------------------------------------------------ steps, browser


@source("max-steps-two")
def _max_steps() -> CassetteBuilder:
    return (
        _b("max-steps-two", "Each response calls a function; the run allows two requests.")
        .turn(call("lookup", "c1"))
        .turn(call("lookup", "c2"))
        .turn(message("unreachable"))
    )


@source("endless-calls")
def _endless() -> CassetteBuilder:
    builder = _b("endless-calls", "Twenty-one responses that each call a function (default max_steps is 20).")
    for step in range(1, 22):
        builder.turn(call("lookup", f"c{step}"))
    return builder


@source("browser-failure-recovered")
def _browser_failure() -> CassetteBuilder:
    return (
        _b("browser-failure-recovered", "A failing click skips the later browser read; the next turn reads again.")
        .turn(click("c1"), page_text("c2"), call("lookup", "c3"))
        .turn(page_text("c4"))
        .turn(message("Done."))
    )


# ------------------------------------------------------------------------------------------ ledger


@source("ledger-resume")
def _ledger_resume() -> CassetteBuilder:
    return (
        _b("ledger-resume", "Run 1: one call, then HTTP 500. Run 2 resumes: one call, then an answer.")
        .turn(call("lookup", "c1"))
        .http_error(500)
        .turn(call("lookup", "c2"))
        .turn(message("Done."))
    )


@source("ledger-budget-resume")
def _ledger_budget() -> CassetteBuilder:
    return (
        _b("ledger-budget-resume", "Run 1 uses two of three requests; the resumed run may send only one.")
        .turn(call("lookup", "c1"))
        .http_error(500)
        .turn(call("lookup", "c2"))
        .turn(message("unreachable"))
    )


# ------------------------------------------------------------------------------------------ context budget


@source("context-budget")
def _context_budget() -> CassetteBuilder:
    return (
        _b("context-budget", "Two large function outputs, then a third request that exceeds the byte budget.")
        .turn(call("lookup", "c1"))
        .turn(call("lookup", "c2"))
        .turn(message("Done."))
    )


@source("context-budget-browser")
def _context_budget_browser() -> CassetteBuilder:
    return (
        _b("context-budget-browser", "A function and a browser read; the browser state stays pinned.")
        .turn(call("lookup", "c1"), page_text("c2"))
        .turn(message("Done."))
    )


@source("context-budget-reasoning")
def _context_budget_reasoning() -> CassetteBuilder:
    return (
        _b(
            "context-budget-reasoning",
            "Reasoning beside the first call, two large outputs, then an over-limit request.",
        )
        .turn(reasoning("rs_1"), call("lookup", "c1"))
        .turn(call("lookup", "c2"))
        .turn(message("Done."))
    )


@source("context-budget-resume")
def _context_budget_resume() -> CassetteBuilder:
    return (
        _b(
            "context-budget-resume",
            "Two large outputs; the compacted third request fails, the resumed run is answered.",
        )
        .turn(call("lookup", "c1"))
        .turn(call("lookup", "c2"))
        .http_error(500)
        .turn(message("Done."))
    )


@source("context-budget-reused-id")
def _context_budget_reused_id() -> CassetteBuilder:
    return (
        _b("context-budget-reused-id", "After the compacted request, the model calls the dropped call ID again.")
        .turn(call("lookup", "c1"))
        .turn(call("lookup", "c2"))
        .turn(function_call("lookup", {"reference": "c1"}, call_id="c1", item_id="fc_c1_again"))
        .turn(message("unreachable"))
    )


@source("context-budget-mcp")
def _context_budget_mcp() -> CassetteBuilder:
    return (
        _b("context-budget-mcp", "A large function output, then an MCP approval request, then the approved call.")
        .turn(call("lookup", "c1"))
        .turn(mcp_approval_request("apr_1", server_label="docs", name="search", arguments={"q": "x"}))
        .turn(
            mcp_call("mcp_1", server_label="docs", name="search", arguments={"q": "x"}, approval_request_id="apr_1"),
            message("Done."),
        )
    )


# ------------------------------------------------------------------------------------------ native compaction

# What the API's context_management compaction hands back: an opaque item the caller must replay unchanged.
COMPACTION: JSONObject = {"type": "compaction", "id": "cmp_1", "encrypted_content": "compacted-canary-3f8e=="}


@source("compaction-then-function")
def _compaction_then_function() -> CassetteBuilder:
    return (
        _b("compaction-then-function", "A compaction item beside a function call; the next request replays it.")
        .turn(dict(COMPACTION), call("lookup", "c1"))
        .turn(message("Done."))
    )


@source("compaction-malformed")
def _compaction_malformed() -> CassetteBuilder:
    # The call comes after the malformed item, so a runner that acts before checking the whole response shows it.
    return (
        _b("compaction-malformed", "A compaction item without its encrypted content, then a function call.")
        .turn({"type": "compaction", "id": "cmp_1"}, call("lookup", "c1"))
        .turn(message("unreachable"))
    )


@source("compaction-computer")
def _compaction_computer() -> CassetteBuilder:
    return (
        _b("compaction-computer", "A compaction item beside a native computer click, then an answer.")
        .turn(dict(COMPACTION), computer_call({"type": "click", "x": 10, "y": 20, "button": "left"}, call_id="c1"))
        .turn(message("Done."))
    )


@source("compaction-computer-malformed")
def _compaction_computer_malformed() -> CassetteBuilder:
    return (
        _b("compaction-computer-malformed", "A compaction item without encrypted content beside a computer click.")
        .turn(
            {"type": "compaction", "id": "cmp_1"},
            computer_call({"type": "click", "x": 10, "y": 20, "button": "left"}, call_id="c1"),
        )
        .turn(message("unreachable"))
    )


@source("compaction-resume")
def _compaction_resume() -> CassetteBuilder:
    return (
        _b("compaction-resume", "Run 1: a compaction item and a call, then HTTP 500. The resumed run gets an answer.")
        .turn(dict(COMPACTION), call("lookup", "c1"))
        .http_error(500)
        .turn(message("Done."))
    )


# ------------------------------------------------------------------------------------------ MCP


@source("mcp-approval")
def _mcp_approval() -> CassetteBuilder:
    return (
        _b("mcp-approval", "An approval request, then the approved call and an answer.")
        .turn(mcp_approval_request("apr_1", server_label="docs", name="search", arguments={"q": "x"}))
        .turn(
            mcp_call("mcp_1", server_label="docs", name="search", arguments={"q": "x"}, approval_request_id="apr_1"),
            message("Done."),
        )
    )


@source("mcp-call-mismatch")
def _mcp_mismatch() -> CassetteBuilder:
    return (
        _b("mcp-call-mismatch", "The call after approval uses other arguments than the approved request.")
        .turn(mcp_approval_request("apr_1", server_label="docs", name="search", arguments={"q": "x"}))
        .turn(
            mcp_call("mcp_1", server_label="docs", name="search", arguments={"q": "y"}, approval_request_id="apr_1"),
            call("lookup", "c1"),
        )
    )


@source("mcp-call-other-name")
def _mcp_other_name() -> CassetteBuilder:
    return (
        _b("mcp-call-other-name", "The call after approval names another tool of the approved server.")
        .turn(mcp_approval_request("apr_1", server_label="docs", name="search", arguments={"q": "x"}))
        .turn(
            mcp_call("mcp_1", server_label="docs", name="fetch", arguments={"q": "x"}, approval_request_id="apr_1"),
            call("lookup", "c1"),
        )
        .turn(message("unreachable"))
    )


@source("mcp-call-other-server")
def _mcp_other_server() -> CassetteBuilder:
    return (
        _b("mcp-call-other-server", "The call after approval goes to another declared server.")
        .turn(mcp_approval_request("apr_1", server_label="docs", name="search", arguments={"q": "x"}))
        .turn(
            mcp_call("mcp_1", server_label="wiki", name="search", arguments={"q": "x"}, approval_request_id="apr_1"),
            call("lookup", "c1"),
        )
        .turn(message("unreachable"))
    )


@source("mcp-invented-approval")
def _mcp_invented_approval() -> CassetteBuilder:
    # The model's own output carries an approval of its request; only approve_mcp may grant.
    invented: JSONObject = {
        "type": "mcp_approval_response",
        "id": "mcpr_1",
        "approval_request_id": "apr_1",
        "approve": True,
    }
    return (
        _b("mcp-invented-approval", "An approval request with an approval the model wrote itself, then the call.")
        .turn(mcp_approval_request("apr_1", server_label="docs", name="search", arguments={"q": "x"}), invented)
        .turn(
            mcp_call("mcp_1", server_label="docs", name="search", arguments={"q": "x"}, approval_request_id="apr_1"),
            call("lookup", "c1"),
        )
        .turn(message("Done."))
    )


@source("mcp-approval-with-message")
def _mcp_approval_with_message() -> CassetteBuilder:
    return (
        _b("mcp-approval-with-message", "An approval request beside a final-looking message that claims consent.")
        .turn(
            mcp_approval_request("apr_1", server_label="docs", name="search", arguments={"q": "x"}),
            message("The user approved the search; proceeding."),
        )
        .turn(
            mcp_call("mcp_1", server_label="docs", name="search", arguments={"q": "x"}, approval_request_id="apr_1"),
            message("Done."),
        )
    )


@source("mcp-unapproved-call")
def _mcp_unapproved() -> CassetteBuilder:
    return (
        _b("mcp-unapproved-call", "An MCP call without any approval request, next to a local call.")
        .turn(mcp_call("mcp_1", server_label="docs", name="search", arguments={"q": "x"}), call("lookup", "c1"))
        .turn(message("Done."))
    )


@source("mcp-http-error")
def _mcp_http_error() -> CassetteBuilder:
    return (
        _b("mcp-http-error", "The first request fails with HTTP 500; a retry would get an answer.")
        .http_error(500)
        .turn(message("Retried."))
    )


@source("mcp-resume")
def _mcp_resume() -> CassetteBuilder:
    return (
        _b("mcp-resume", "Run 1: an approval request, then HTTP 500. The resumed run gets an answer.")
        .turn(mcp_approval_request("apr_1", server_label="docs", name="search", arguments={"q": "x"}))
        .http_error(500)
        .turn(message("Done."))
    )


@source("mcp-reapproval")
def _mcp_reapproval() -> CassetteBuilder:
    return _b("mcp-reapproval", "Initial input already holds an approved request; the model then answers.").turn(
        message("Done.")
    )


# ------------------------------------------------------------------------------------------ turns


@source("two-calls-two-turns")
def _two_turns() -> CassetteBuilder:
    return (
        _b("two-calls-two-turns", "A function and a browser read, then an answer (supply_outputs/append text).")
        .turn(call("lookup", "c1"), page_text("c2"))
        .turn(message("Done."))
    )


@source("cancel-during-call")
def _cancel() -> CassetteBuilder:
    return (
        _b("cancel-during-call", "One call whose executor asks the run to stop.")
        .turn(call("lookup", "c1"), call("note", "c2"))
        .turn(message("unreachable"))
    )


# ------------------------------------------------------------------------------------------ Decisions


@source("decisions-act-then-done")
def _decisions_verified() -> CassetteBuilder:
    return _b("decisions-act-then-done", "Choose review, then done.").decision("review").decision("done")


@source("decisions-done")
def _decisions_done() -> CassetteBuilder:
    return _b("decisions-done", "Choose done at once.").decision("done")


@source("decisions-refusal")
def _decisions_refusal() -> CassetteBuilder:
    return _b("decisions-refusal", "The model refuses.").decision(None)


@source("decisions-review-twice")
def _decisions_twice() -> CassetteBuilder:
    return (
        _b("decisions-review-twice", "Review, done (verification fails), review, done.")
        .decision("review")
        .decision("done")
        .decision("review")
        .decision("done")
    )


@source("decisions-unknown-choice")
def _decisions_unknown() -> CassetteBuilder:
    return _b("decisions-unknown-choice", "The answer names no registered candidate.").decision("delete-all")


@source("decisions-empty")
def _decisions_empty() -> CassetteBuilder:
    return _b("decisions-empty", "No exchange: a done-only run must not call the API.")


# ------------------------------------------------------------------------------------------ computer safety checks

SAFETY_CHECKS: list[JSONObject] = [
    {"id": "sc_1", "code": "malicious_instructions", "message": "The page asks the agent to ignore its task."},
    {"id": "sc_2", "code": "sensitive_domain", "message": "The screen shows a banking site."},
]
SAFETY_BATCH: list[JSONObject] = [
    {"type": "click", "x": 10, "y": 20, "button": "left"},
    {"type": "type", "text": "hello"},
    {"type": "keypress", "keys": ["ENTER"]},
]


@source("computer-safety-check")
def _computer_safety_check() -> CassetteBuilder:
    return (
        _b("computer-safety-check", "A function, a click carrying one pending safety check, a function; an answer.")
        .turn(
            call("lookup", "c1"),
            computer_call(
                {"type": "click", "x": 10, "y": 20, "button": "left"}, call_id="c2", safety_checks=SAFETY_CHECKS[:1]
            ),
            call("lookup", "c3"),
        )
        .turn(message("Done."))
    )


@source("computer-safety-batch")
def _computer_safety_batch() -> CassetteBuilder:
    return (
        _b("computer-safety-batch", "A three-action batch with two pending checks, then a function; then an answer.")
        .turn(computer_call(SAFETY_BATCH, call_id="c1", safety_checks=SAFETY_CHECKS), call("lookup", "c2"))
        .turn(message("Done."))
    )


@source("computer-checks-added-late")
def _computer_checks_added_late() -> CassetteBuilder:
    click = {"type": "click", "x": 10, "y": 20, "button": "left"}
    return (
        _b("computer-checks-added-late", "A click streamed without checks; the completed response adds one to it.")
        .turn(computer_call(click, call_id="c1"), call("lookup", "c2"))
        .fault(
            "completed_output",
            output=[computer_call(click, call_id="c1", safety_checks=SAFETY_CHECKS[:1]), call("lookup", "c2")],
        )
        .turn(message("unreachable"))
    )


# ------------------------------------------------------------------------------------------ diagnostics


# Distinctive strings planted in private places (arguments, URLs, page text...): a diagnostic that carries one
# of them leaked private data. The checks in test_decisions_diagnostics.py import them from here.
@source("diagnostics-private-data")
def _diagnostics_private_data() -> CassetteBuilder:
    return (
        _b("diagnostics-private-data", "Calls carrying private arguments and page reads; then a call that raises.")
        .turn(
            function_call("lookup", {"reference": PRIVATE_ARGUMENT}, call_id="c1"),
            page_text("c2"),
            function_call("browser_screenshot", {"tab_id": None}, call_id="c3"),
            function_call("browser_click", {"target": PRIVATE_CLICK_TARGET, "tab_id": None}, call_id="c4"),
        )
        .turn(call("explode", "c5"))
    )


@source("diagnostics-api-error")
def _diagnostics_api_error() -> CassetteBuilder:
    return (
        _b("diagnostics-api-error", "One call, then the second request fails with a private error message.")
        .turn(call("lookup", "c1"))
        .http_error(500, PRIVATE_API_ERROR)
    )


@source("decisions-api-error")
def _decisions_api_error() -> CassetteBuilder:
    return (
        _b("decisions-api-error", "Review, then the second Decisions request fails with a private error message.")
        .decision("review")
        .decision("done")
        .fault("http_status", status=500, message=PRIVATE_API_ERROR)
    )


@source("diagnostics-no-usage")
def _diagnostics_no_usage() -> CassetteBuilder:
    return (
        _b("diagnostics-no-usage", "The first response carries no usage; the second carries the default usage.")
        .turn(call("lookup", "c1"), usage=None)
        .turn(message("Done."))
    )


# ------------------------------------------------------------------------------------------ idempotency keys


@source("idempotency-three-turns")
def _idempotency_three_turns() -> CassetteBuilder:
    return (
        _b("idempotency-three-turns", "Three requests: a call, another call, an answer (one key per request).")
        .turn(call("lookup", "c1"))
        .turn(call("lookup", "c2"))
        .turn(message("Done."))
    )


@source("idempotency-retries")
def _idempotency_retries() -> CassetteBuilder:
    return (
        _b("idempotency-retries", "HTTP 500 then a call; HTTP 500 then an answer (max_retries=1 retries each).")
        .http_error(500)
        .turn(call("lookup", "c1"))
        .http_error(500)
        .turn(message("Done."))
    )


@source("decisions-idempotency-retries")
def _decisions_idempotency_retries() -> CassetteBuilder:
    return (
        _b("decisions-idempotency-retries", "HTTP 500 then review; HTTP 500 then done (max_retries=1 retries each).")
        .decision("review")
        .fault("http_status", status=500, message="injected HTTP failure")
        .decision("review")
        .decision("done")
        .fault("http_status", status=500, message="injected HTTP failure")
        .decision("done")
    )


# ------------------------------------------------------------------------------------------ concurrency windows
# Independent functions are named by their role in the checks: "slow" holds, "quick" returns at once, "boom" fails.


@source("independent-windows")
def _independent_windows() -> CassetteBuilder:
    return (
        _b("independent-windows", "Four independent calls, slow and quick alternating, in one response.")
        .turn(call("slow", "c1"), call("quick", "c2"), call("slow", "c3"), call("quick", "c4"))
        .turn(message("Done."))
    )


@source("independent-then-browser")
def _independent_then_browser() -> CassetteBuilder:
    return (
        _b("independent-then-browser", "An independent call, then a browser read that must wait for it.")
        .turn(call("slow", "c1"), page_text("c2"))
        .turn(message("Done."))
    )


@source("independent-then-computer")
def _independent_then_computer() -> CassetteBuilder:
    return (
        _b("independent-then-computer", "An independent call, then a native computer click that must wait for it.")
        .turn(call("slow", "c1"), computer_call({"type": "click", "x": 10, "y": 20, "button": "left"}, call_id="c2"))
        .turn(message("Done."))
    )


@source("independent-then-dependent")
def _independent_then_dependent() -> CassetteBuilder:
    return (
        _b("independent-then-dependent", "An independent call, then an ordinary (dependent) one, then completion.")
        .turn(call("slow", "c1"), call("lookup", "c2"))
        .turn(message("Done."))
    )


@source("independent-sibling-fails")
def _independent_sibling_fails() -> CassetteBuilder:
    return (
        _b("independent-sibling-fails", "Three independent calls; the second one's executor raises.")
        .turn(call("slow", "c1"), call("boom", "c2"), call("quick", "c3"))
        .turn(message("unreachable"))
    )


@source("server-tool-then-independent")
def _server_tool_then_independent() -> CassetteBuilder:
    return (
        _b("server-tool-then-independent", "A declared web search result, then two independent calls.")
        .turn(web_search_call("ws_1"), call("slow", "c1"), call("quick", "c2"))
        .turn(message("Done."))
    )


# ------------------------------------------------------------------------------------------ context budget: images


def _click(call_id: str, safety_checks: list[dict[str, object]] | None = None) -> dict[str, object]:
    action: dict[str, object] = {"type": "click", "x": 10, "y": 20, "button": "left"}
    return computer_call(action, call_id=call_id, safety_checks=safety_checks)


def _browser_screenshot(call_id: str) -> dict[str, object]:
    return function_call("browser_screenshot", {"tab_id": None}, call_id=call_id)


@source("context-images-message")
def _context_images_message() -> CassetteBuilder:
    return (
        _b("context-images-message", "One text-only function call; any images are in the caller's input message.")
        .turn(call("lookup", "c1"))
        .turn(message("Done."))
    )


@source("context-images-functions")
def _context_images_functions() -> CassetteBuilder:
    return (
        _b("context-images-functions", "Two calls of a function that answers with an image, one per response.")
        .turn(call("snap", "c1"))
        .turn(call("snap", "c2"))
        .turn(message("Done."))
    )


@source("context-images-computer")
def _context_images_computer() -> CassetteBuilder:
    return (
        _b("context-images-computer", "Four native computer clicks, one per response: one screenshot each.")
        .turn(_click("c1"))
        .turn(_click("c2"))
        .turn(_click("c3"))
        .turn(_click("c4"))
        .turn(message("Done."))
    )


@source("context-images-safety")
def _context_images_safety() -> CassetteBuilder:
    check: dict[str, object] = {
        "id": "sc_1",
        "code": "malicious_instructions",
        "message": "Review the page before clicking.",
    }
    return (
        _b("context-images-safety", "A computer click carrying a safety check, then two plain clicks.")
        .turn(_click("c1", [check]))
        .turn(_click("c2"))
        .turn(_click("c3"))
        .turn(message("Done."))
    )


@source("context-images-computer-then-browser")
def _context_images_computer_then_browser() -> CassetteBuilder:
    return (
        _b(
            "context-images-computer-then-browser",
            "A computer click, then a browser screenshot and an image function: the click is no longer the newest.",
        )
        .turn(_click("c1"))
        .turn(_browser_screenshot("c2"), call("snap", "c3"))
        .turn(message("Done."))
    )


@source("context-images-computer-then-function")
def _context_images_computer_then_function() -> CassetteBuilder:
    return (
        _b("context-images-computer-then-function", "Two computer clicks, then a function that answers with an image.")
        .turn(_click("c1"))
        .turn(_click("c2"))
        .turn(call("snap", "c3"))
        .turn(message("Done."))
    )


@source("context-images-browser-screenshot-then-read")
def _context_images_browser_screenshot() -> CassetteBuilder:
    return (
        _b("context-images-browser-screenshot-then-read", "A browser screenshot, then a page read, in one response.")
        .turn(_browser_screenshot("c1"), page_text("c2"))
        .turn(message("Done."))
    )


@source("context-images-browser-screenshot-then-click")
def _context_images_browser_screenshot_then_click() -> CassetteBuilder:
    return (
        _b(
            "context-images-browser-screenshot-then-click",
            "A browser screenshot and a page read, then a computer click: two screenshots from two tools.",
        )
        .turn(_browser_screenshot("c1"), page_text("c2"))
        .turn(_click("c3"))
        .turn(message("Done."))
    )


@source("context-images-function-then-read")
def _context_images_function_then_read() -> CassetteBuilder:
    return (
        _b("context-images-function-then-read", "An image-returning function, then a page read, in one response.")
        .turn(call("snap", "c1"), page_text("c2"))
        .turn(message("Done."))
    )


# ---- end of scenarios


# ------------------------------------------------------------------------------------------ registration, dispatch


@source("browser-prefixed-function")
def _browser_prefixed_function() -> CassetteBuilder:
    return (
        _b("browser-prefixed-function", "A call to an ordinary function whose name starts with browser_.")
        .turn(call("browser_notes", "c1"))
        .turn(message("Done."))
    )


@source("unregistered-function-second")
def _unregistered_function_second() -> CassetteBuilder:
    # The known call comes first, so a runner that dispatches before validating the whole response shows it.
    return (
        _b("unregistered-function-second", "A registered call, then a call to a function nobody registered.")
        .turn(call("lookup", "c1"), call("unregistered", "c2"))
        .turn(message("unreachable"))
    )


@source("duplicate-call-id")
def _duplicate_call_id() -> CassetteBuilder:
    return (
        _b("duplicate-call-id", "Two calls in one response share call ID c1 (distinct item IDs).")
        .turn(call("lookup", "c1"), function_call("note", {"reference": "c1"}, call_id="c1", item_id="fc_second"))
        .turn(message("unreachable"))
    )


@source("completed-drops-eager-item")
def _completed_drops_eager_item() -> CassetteBuilder:
    return (
        _b("completed-drops-eager-item", "A streamed call the completed response no longer contains.")
        .turn(call("lookup", "c1"))
        .fault("completed_output", output=[message("Nothing to do.")])
        .turn(message("unreachable"))
    )


@source("decisions-access-denied")
def _decisions_access_denied() -> CassetteBuilder:
    return (
        _b("decisions-access-denied", "The first Decisions request is refused: the project has no access (HTTP 403).")
        .decision("review")
        .fault("http_status", status=403, message="This project does not have access to Decisions.")
    )


@source("decisions-model-not-found")
def _decisions_model_not_found() -> CassetteBuilder:
    return (
        _b("decisions-model-not-found", "The first Decisions request names a model the API does not offer (HTTP 404).")
        .decision("review")
        .fault("http_status", status=404, message="The model gpt-test does not exist.")
    )


# ------------------------------------------------------------------------------ typed functions, server results


@source("typed-arguments-missing-field")
def _typed_missing_field() -> CassetteBuilder:
    return _b("typed-arguments-missing-field", "A JSON object without the model's required reference.").turn(
        function_call("lookup", {}, call_id="c1")
    )


@source("typed-arguments-wrong-type")
def _typed_wrong_type() -> CassetteBuilder:
    return _b("typed-arguments-wrong-type", "A JSON object whose reference is a number, not a string.").turn(
        function_call("lookup", {"reference": 7}, call_id="c1")
    )


FILE_SEARCH_RESULT: JSONObject = {
    "type": "file_search_call",
    "id": "fs_1",
    "status": "completed",
    "queries": ["opening hours"],
    "results": [
        {"file_id": "file_hours", "filename": "hours.txt", "score": 0.91, "text": "Open 9-17.", "attributes": {}}
    ],
}
CODE_INTERPRETER_RESULT: JSONObject = {
    "type": "code_interpreter_call",
    "id": "ci_1",
    "status": "completed",
    "code": "print(6 * 7)",
    "container_id": "cntr_4b1e",
    "outputs": [{"type": "logs", "logs": "42"}],
}


@source("file-search-and-code-interpreter")
def _file_search_and_code_interpreter() -> CassetteBuilder:
    return (
        _b("file-search-and-code-interpreter", "A file search and a code interpreter result beside a local call.")
        .turn(FILE_SEARCH_RESULT, CODE_INTERPRETER_RESULT, call("lookup", "c1"))
        .turn(message("Done."))
    )


@source("server-tool-in-progress")
def _server_in_progress() -> CassetteBuilder:
    return _b("server-tool-in-progress", "A web search left in_progress, then a local call.").turn(
        web_search_call("ws_1", status="in_progress"), call("lookup", "c1")
    )


@source("server-tool-incomplete")
def _server_incomplete() -> CassetteBuilder:
    return _b("server-tool-incomplete", "A web search that ended incomplete, then a local call.").turn(
        web_search_call("ws_1", status="incomplete"), call("lookup", "c1")
    )


@source("computer-named-function")
def _computer_named_function() -> CassetteBuilder:
    return (
        _b("computer-named-function", "A call to an ordinary function named computer, then commentary (eager start).")
        .turn(call("computer", "c1"), message("Working on it.", item_id="msg_c", phase="commentary"))
        .turn(message("Done."))
    )


@source("computer-only-loop")
def _computer_only_loop() -> CassetteBuilder:
    return (
        _b("computer-only-loop", "A computer-only task: a click, then typing, then an answer.")
        .turn(computer_call({"type": "click", "x": 10, "y": 20, "button": "left"}, call_id="c1"))
        .turn(computer_call({"type": "type", "text": "hello"}, call_id="c2"))
        .turn(message("Done."))
    )


@source("early-click")
def _early_click() -> CassetteBuilder:
    return (
        _b("early-click", "A browser click, then commentary in the same response (an eager start).")
        .turn(click("c1"), message("Working on it.", item_id="msg_c", phase="commentary"))
        .turn(message("Done."))
    )


@source("early-navigate")
def _early_navigate() -> CassetteBuilder:
    navigate = function_call("browser_navigate", {"url": "https://probe.example/next", "tab_id": None}, call_id="c1")
    return (
        _b("early-navigate", "A browser navigation, then commentary in the same response (an eager start).")
        .turn(navigate, message("Working on it.", item_id="msg_c", phase="commentary"))
        .turn(message("Done."))
    )
