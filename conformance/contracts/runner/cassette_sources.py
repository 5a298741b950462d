"""The builder source of every runner cassette committed under ``fixtures/streams/``.

The committed JSONL files are what the checks load; this module is how they were made, so a reviewer can read a
scenario in a few lines and ``python -m conformance.contracts.runner.cassette_sources --write`` regenerates
them. ``tests/test_cassettes_fixtures.py`` fails if a committed file drifts from its source.

Convention: every function call passes its own call ID as ``reference``, so the harness timeline shows which
call ran (``call:lookup:c1``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from conformance import cassettes
from conformance.cassette_builder import (
    CassetteBuilder,
    computer_call,
    function_call,
    image_generation_call,
    mcp_approval_request,
    mcp_call,
    message,
    web_search_call,
)
from conformance.contracts.runner._harness import STREAMS_DIR

Source = Callable[[], CassetteBuilder]
SOURCES: dict[str, Source] = {}


def source(name: str) -> Callable[[Source], Source]:
    def register(make: Source) -> Source:
        if name in SOURCES:
            raise ValueError(f"duplicate cassette {name}")
        SOURCES[name] = make
        return make

    return register


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


# ------------------------------------------------------------------------------------------ MCP

MCP_TOOL = {"type": "mcp", "server_label": "docs", "server_url": "https://mcp.example/sse"}


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


# ---- end of scenarios


def build_all() -> dict[str, cassettes.Cassette]:
    return {name: make().build() for name, make in SOURCES.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Regenerate the runner cassettes under fixtures/streams/.")
    parser.add_argument("--write", action="store_true", help="write the files (default: only list them)")
    args = parser.parse_args(argv)
    for name, cassette in build_all().items():
        target = STREAMS_DIR / f"{name}.jsonl"
        if args.write:
            cassettes.save(cassette, target)
        print(f"{target} ({len(cassette.exchanges)} exchange(s))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
