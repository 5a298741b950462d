"""Hypothesis strategies for whole Responses runs a real server could send, each rendered as a valid cassette.

A generated run is a :class:`RunPlan`: the tools the run declares and one :class:`TurnPlan` per response. A turn
holds output items of every kind the kit knows (ordinary functions, browser and native computer calls, final and
commentary messages, reasoning, web search and MCP results) and, now and then, a fault: a call left in progress
or incomplete, arguments that are not JSON, not an object or cut short, an incomplete or failed ending, a failed or
undeclared server result, events sent twice, a stream cut (cleanly, by a dropped connection, or inside an event)
and HTTP failures before the response, which the client's retries may answer. Items can stream side by side.

:func:`render` turns a plan into a cassette in the kit's format: streamed exchanges with every lifecycle event
(:mod:`conformance.streams.events`), faults as cassette faults, and a header that stores the run (the tools a
runner is given, as :meth:`~conformance.cassette_builder.CassetteBuilder.replayable` does) so ``driverkit replay``
and the fuzz harness rebuild the same runner from the file alone. Plans shrink well: fewer turns, fewer items,
no fault, one item after another.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal, cast

from hypothesis import strategies as st

from conformance.cassette_builder import (
    DEFAULT_USAGE,
    REPLAY_REQUEST,
    computer_call,
    function_call,
    mcp_call,
    message,
    response_object,
    web_search_call,
)
from conformance.cassettes import Cassette, Exchange, Fault, JSONObject, RecordedRequest, RecordedResponse, loads
from conformance.replay import run_settings_from
from conformance.streams.events import DONE, response_events

# The header meta key of the run's settings (``driverkit replay`` reads it; a generated run sets its retries).
RUN_META: Final = "run"
FUNCTION_NAMES: Final = ("lookup", "note")
BROWSER_MEMBER: Final = "click"
MCP_LABEL: Final = "docs"
# Approval off for this server: its calls are then plain server results (approval is the MCP checks' subject).
MCP_DECLARATION: Final[JSONObject] = {
    "type": "mcp",
    "server_label": MCP_LABEL,
    "server_url": "https://mcp.example/sse",
    "require_approval": "never",
}
WEB_SEARCH_DECLARATION: Final[JSONObject] = {"type": "web_search"}
RETRYABLE_STATUSES: Final = (500, 503, 429)
REFERENCE_SCHEMA: Final[JSONObject] = {
    "type": "object",
    "properties": {"reference": {"type": "string"}},
    "required": ["reference"],
    "additionalProperties": False,
}

ItemKind = Literal["function", "browser", "computer", "message", "commentary", "reasoning", "web_search", "mcp"]
# A local call's fault: its status, or its arguments (functions only: the documents speak of an executor's input).
CallFault = Literal["in_progress", "incomplete", "not_json", "not_object", "truncated"]
Ending = Literal["completed", "incomplete", "failed"]
LOCAL_KINDS: Final = frozenset({"function", "browser", "computer"})
SERVER_KINDS: Final = frozenset({"web_search", "mcp"})


@dataclass(frozen=True)
class ItemPlan:
    """One output item. ``fault`` is a :data:`CallFault` for a local call, ``"failed"`` for a server result."""

    kind: ItemKind
    function: str = FUNCTION_NAMES[0]
    fault: str | None = None
    text: str = "Done."


@dataclass(frozen=True)
class CutPlan:
    """The stream stops after the event at ``after`` (a sequence number): a clean end, a dropped connection
    (``error``), or a body ending halfway through the next event (``mid_event``)."""

    after: int
    error: bool = False
    mid_event: bool = False


@dataclass(frozen=True)
class TurnPlan:
    """One response: its items, how it ends and how it is streamed, and HTTP failures served before it."""

    items: tuple[ItemPlan, ...]
    ending: Ending = "completed"
    interleave: bool = False
    piece: int = 5
    repeats: tuple[int, ...] = ()
    cut: CutPlan | None = None
    http_errors: tuple[int, ...] = ()


@dataclass(frozen=True)
class ToolsPlan:
    """What the run declares: registered functions, a browser (its click member), a computer, server tools."""

    functions: tuple[str, ...] = FUNCTION_NAMES[:1]
    browser: bool = False
    computer: bool = False
    web_search: bool = False
    mcp: bool = False


@dataclass(frozen=True)
class RunPlan:
    tools: ToolsPlan
    turns: tuple[TurnPlan, ...]
    max_retries: int = 0


# ------------------------------------------------------------------------------------------ rendering


def function_tool(name: str) -> JSONObject:
    """The function declaration a generated run registers (the runner suite's ``lookup`` schema)."""
    return {
        "type": "function",
        "name": name,
        "description": f"{name} a reference",
        "parameters": REFERENCE_SCHEMA,
        "strict": True,
    }


def replay_request(tools: ToolsPlan) -> JSONObject:
    """The first request of the run, as ``driverkit replay`` rebuilds a runner from it."""
    declared: list[JSONObject] = [function_tool(name) for name in tools.functions]
    if tools.browser:
        declared.append({"type": "function", "name": f"browser_{BROWSER_MEMBER}"})
    if tools.computer:
        declared.append({"type": "computer"})
    if tools.web_search:
        declared.append(dict(WEB_SEARCH_DECLARATION))
    if tools.mcp:
        declared.append(dict(MCP_DECLARATION))
    return {"model": "gpt-test", "input": "hi", "tools": declared}


def _malformed(fault: str, call_id: str) -> str | None:
    if fault == "not_json":
        return "{'reference': NaN}"
    if fault == "not_object":
        return json.dumps([call_id])
    if fault == "truncated":
        return '{"reference":"' + call_id[:1]
    return None


def _item(plan: ItemPlan, number: int) -> JSONObject:
    """The output item of ``plan``; ``number`` makes its IDs unique in the run (``c<number>`` for a call)."""
    call_id = f"c{number}"
    if plan.kind in LOCAL_KINDS:
        item: JSONObject
        if plan.kind == "function":
            item = function_call(plan.function, {"reference": call_id}, call_id=call_id)
        elif plan.kind == "browser":
            # The probe driver never sees the call ID, so the click target carries it onto the timeline.
            item = function_call(f"browser_{BROWSER_MEMBER}", {"target": call_id, "tab_id": None}, call_id=call_id)
        else:
            # The x coordinate names the call for the same reason (the harness labels clicks c<x>).
            item = computer_call({"type": "click", "x": number, "y": 20, "button": "left"}, call_id=call_id)
        fault = plan.fault
        if fault in ("in_progress", "incomplete"):
            item["status"] = fault
        elif fault is not None:
            arguments = _malformed(fault, call_id)
            if arguments is not None and plan.kind == "function":
                item["arguments"] = arguments
        return item
    if plan.kind in ("message", "commentary"):
        phase = "commentary" if plan.kind == "commentary" else None
        return message(plan.text, item_id=f"msg_{number}", phase=phase)
    if plan.kind == "reasoning":
        summary = [{"type": "summary_text", "text": plan.text}] if plan.text else []
        return {"type": "reasoning", "id": f"rs_{number}", "summary": summary, "encrypted_content": "opaque"}
    if plan.kind == "web_search":
        return web_search_call(f"ws_{number}", status="failed" if plan.fault else "completed")
    found = mcp_call(
        f"mcp_{number}", server_label=MCP_LABEL, name="search_docs", arguments={"q": call_id}, output="found"
    )
    if plan.fault:
        found.update(status="failed", output=None, error={"type": "http_error", "code": 502, "message": "bad gateway"})
    return found


def _response(turn: TurnPlan, number: int, first_item: int) -> JSONObject:
    output = [_item(item, first_item + offset) for offset, item in enumerate(turn.items)]
    body = response_object(f"resp_{number}", output, status=turn.ending, usage=DEFAULT_USAGE)
    if turn.ending == "incomplete":
        body["incomplete_details"] = {"reason": "max_output_tokens"}
    elif turn.ending == "failed":
        body["error"] = {"code": "server_error", "message": "The model failed."}
    return body


def http_failure(status: int) -> Exchange:
    """An exchange answered by an HTTP error, as a recording keeps one: the status and the API's error body."""
    error: JSONObject = {"error": {"message": "injected HTTP failure", "type": "server_error", "code": None}}
    return Exchange(RecordedRequest("POST", "/v1/responses"), RecordedResponse(status, body=error))


def turn_events(turn: TurnPlan, number: int, first_item: int) -> list[JSONObject]:
    """The numbered events of one turn's response (before any fault)."""
    response = _response(turn, number, first_item)
    return response_events(response, piece=turn.piece, interleave=turn.interleave, repeats=turn.repeats)


def render(plan: RunPlan, scenario: str = "generated") -> Cassette:
    """The cassette of ``plan``: HTTP failures and streamed responses in order, the run stored in the header."""
    exchanges: list[Exchange] = []
    first_item = 1
    for number, turn in enumerate(plan.turns, start=1):
        exchanges += [http_failure(status) for status in turn.http_errors]
        events = tuple(turn_events(turn, number, first_item))
        first_item += len(turn.items)
        faults: tuple[Fault, ...] = ()
        if turn.cut is not None:
            fields: dict[str, object] = {"after_sequence": turn.cut.after}
            if turn.cut.error:
                fields["error"] = True
            if turn.cut.mid_event:
                fields["mid_event"] = True
            faults = (Fault("cut_stream", fields),)
        request = RecordedRequest("POST", "/v1/responses")
        exchanges.append(Exchange(request, RecordedResponse(200, events=events), faults))
    meta: JSONObject = {REPLAY_REQUEST: replay_request(plan.tools)}
    if plan.max_retries:
        meta[RUN_META] = {"max_retries": plan.max_retries}
    cassette = Cassette(scenario, tuple(exchanges), "A generated Responses run.", meta)
    # A round trip through the loader: every generated stream is a valid cassette, or generation is wrong.
    return loads(cassette.dumps(), f"<generated {scenario}>")


def max_retries_of(cassette: Cassette) -> int:
    """The client retries a generated (or shrunk, or recorded) run was given; 0 when its header says nothing."""
    return run_settings_from(cassette.meta).max_retries or 0


# ------------------------------------------------------------------------------------------ strategies

# The faults a run can carry, each placed on one turn. Most runs carry none or one, so the documented course of a
# well-formed run is exercised as often as each fault; hypothesis shrinks the list towards no fault at all.
RunFault = Literal[
    "call_status", "arguments", "ending", "server_failed", "undeclared_server", "repeat", "cut", "http", "no_answer"
]
RUN_FAULTS: Final[tuple[RunFault, ...]] = (
    "call_status",
    "arguments",
    "ending",
    "server_failed",
    "undeclared_server",
    "repeat",
    "cut",
    "http",
    "no_answer",
)
_TEXTS: Final = ("Done.", "Looking it up.", "Les résultats arrivent.")


@st.composite
def tools_plans(draw: st.DrawFn) -> ToolsPlan:
    functions = draw(st.sampled_from((FUNCTION_NAMES[:1], FUNCTION_NAMES)))
    return ToolsPlan(
        functions=functions,
        browser=draw(st.booleans()),
        computer=draw(st.booleans()),
        web_search=draw(st.booleans()),
        mcp=draw(st.sampled_from((False, False, False, True))),
    )


def _local_kinds(tools: ToolsPlan) -> list[ItemKind]:
    kinds: list[ItemKind] = ["function"]
    if tools.browser:
        kinds.append("browser")
    if tools.computer:
        kinds.append("computer")
    return kinds


def _side_kinds(tools: ToolsPlan) -> list[ItemKind]:
    kinds: list[ItemKind] = ["reasoning", "commentary", "message"]
    if tools.web_search:
        kinds.append("web_search")
    if tools.mcp:
        kinds.append("mcp")
    return kinds


@st.composite
def _calls_turn(draw: st.DrawFn, tools: ToolsPlan) -> list[ItemPlan]:
    """A turn that calls tools: one to three local calls, with reasoning, commentary or server results between."""
    calls = [
        ItemPlan(kind, function=draw(st.sampled_from(tools.functions)))
        for kind in draw(st.lists(st.sampled_from(_local_kinds(tools)), min_size=1, max_size=3))
    ]
    sides = [
        ItemPlan(kind, text=draw(st.sampled_from(_TEXTS)))
        for kind in draw(st.lists(st.sampled_from(_side_kinds(tools)), max_size=2))
    ]
    items = list(calls)
    for side in sides:
        items.insert(draw(st.integers(0, len(items))), side)
    return items


@st.composite
def _answer_turn(draw: st.DrawFn, tools: ToolsPlan) -> list[ItemPlan]:
    """The last turn: an answer, perhaps after reasoning or a server result."""
    before = draw(st.lists(st.sampled_from(["reasoning", *(["web_search"] if tools.web_search else [])]), max_size=1))
    return [
        *(ItemPlan(cast(ItemKind, kind), text="Thinking.") for kind in before),
        ItemPlan("message", text="The answer."),
    ]


def _fault_targets(items: Sequence[ItemPlan], kinds: frozenset[str]) -> list[int]:
    return [position for position, item in enumerate(items) if item.kind in kinds]


# Faults that change a turn's items or how it ends; the others pick event positions, so they are placed once every
# turn's items (and so every call's number, and so every event) are final.
ITEM_FAULTS: Final = frozenset({"call_status", "arguments", "ending", "server_failed", "undeclared_server", "http"})
_TARGETS: Final[dict[str, frozenset[str]]] = {
    "call_status": LOCAL_KINDS,
    "arguments": frozenset({"function"}),
    "server_failed": SERVER_KINDS,
}


def _applies(fault: RunFault, turn: TurnPlan, tools: ToolsPlan) -> bool:
    if fault == "server_failed":
        # A turn without a server result gets a failed one of a declared kind.
        return tools.web_search or tools.mcp
    if fault in _TARGETS:
        return bool(_fault_targets(turn.items, _TARGETS[fault]))
    return fault != "undeclared_server" or not tools.web_search


@st.composite
def _with_item_fault(draw: st.DrawFn, turn: TurnPlan, fault: RunFault, tools: ToolsPlan) -> TurnPlan:
    """``turn`` carrying one of the faults of :data:`ITEM_FAULTS` (it has what the fault needs)."""
    items = list(turn.items)
    if fault == "server_failed" and not _fault_targets(items, SERVER_KINDS):
        kind: ItemKind = "web_search" if tools.web_search else "mcp"
        items.insert(draw(st.integers(0, len(items))), ItemPlan(kind, fault="failed"))
        return replace(turn, items=tuple(items))
    if fault in _TARGETS:
        position = draw(st.sampled_from(_fault_targets(items, _TARGETS[fault])))
        choices = {
            "call_status": ("in_progress", "incomplete"),
            "arguments": ("not_json", "not_object", "truncated"),
            "server_failed": ("failed",),
        }[fault]
        items[position] = replace(items[position], fault=draw(st.sampled_from(choices)))
        return replace(turn, items=tuple(items))
    if fault == "ending":
        return replace(turn, ending=draw(st.sampled_from(("incomplete", "failed"))))
    if fault == "undeclared_server":
        items.insert(draw(st.integers(0, len(items))), ItemPlan("web_search"))
        return replace(turn, items=tuple(items))
    statuses = draw(st.lists(st.sampled_from(RETRYABLE_STATUSES), min_size=1, max_size=2))
    return replace(turn, http_errors=tuple(statuses))


@st.composite
def _with_event_fault(draw: st.DrawFn, turn: TurnPlan, fault: RunFault, number: int, first: int) -> TurnPlan:
    """``turn`` (response ``number``, whose first item is numbered ``first``) with events sent twice or its
    stream cut."""
    events = turn_events(turn, number, first)
    count = len(events)
    if fault == "repeat":
        # Positions among the item events, between response.in_progress and the terminal event.
        repeats = draw(st.lists(st.integers(0, count - 3), min_size=1, max_size=2, unique=True))
        return replace(turn, repeats=tuple(sorted(repeats)))
    # Half the cuts fall just after an item completed (or just before the terminal event), where what arrived is
    # whole and only the response's end is missing; the rest anywhere before the terminal event.
    boundaries = sorted({position for position, event in enumerate(events) if event["type"] == DONE} | {count - 2})
    after = draw(st.one_of(st.sampled_from(boundaries), st.integers(0, count - 2)))
    return replace(turn, cut=CutPlan(after, error=draw(st.booleans()), mid_event=draw(st.booleans())))


@st.composite
def run_plans(draw: st.DrawFn, max_turns: int = 4, faults_from: Sequence[RunFault] = RUN_FAULTS) -> RunPlan:
    """A whole run: its tools, one to ``max_turns`` responses (tool calls, then an answer), up to two faults of the
    kinds ``faults_from``, each on a turn it can hit, and the client's retries."""
    tools = draw(tools_plans())
    count = draw(st.integers(1, max_turns))
    # One run in four is well formed; the others carry one or two faults.
    well_formed = draw(st.sampled_from((False, False, False, True)))
    kinds = st.sampled_from(tuple(faults_from))
    faults: list[RunFault] = [] if well_formed else draw(st.lists(kinds, min_size=1, max_size=2))
    answers = "no_answer" not in faults
    turns: list[TurnPlan] = []
    for number in range(1, count + 1):
        items = draw(_answer_turn(tools)) if number == count and answers else draw(_calls_turn(tools))
        interleave = draw(st.sampled_from((False, False, True)))
        turns.append(TurnPlan(tuple(items), interleave=interleave, piece=draw(st.sampled_from((5, 1, 3, 64)))))
    for fault in sorted(faults, key=lambda kind: kind not in ITEM_FAULTS):
        if fault == "no_answer":
            continue
        eligible = [at for at, turn in enumerate(turns) if _applies(fault, turn, tools)]
        if not eligible:
            continue
        at = draw(st.sampled_from(eligible))
        if fault in ITEM_FAULTS:
            turns[at] = draw(_with_item_fault(turns[at], fault, tools))
        else:
            first = 1 + sum(len(turn.items) for turn in turns[:at])
            turns[at] = draw(_with_event_fault(turns[at], fault, at + 1, first))
    return RunPlan(tools, tuple(turns), max_retries=draw(st.integers(0, 2)))


def cassettes(max_turns: int = 4, faults_from: Sequence[RunFault] = RUN_FAULTS) -> st.SearchStrategy[Cassette]:
    """Generated runs as cassettes, ready to serve or to write to disk."""
    return run_plans(max_turns, faults_from).map(render)


def local_calls(cassette: Cassette) -> list[str]:
    """Every local call ID the cassette's responses carry, in order (for reports)."""
    ids: list[str] = []
    for exchange in cassette.exchanges:
        final = exchange.response.final_response() or {}
        for item in cast(list[JSONObject], final.get("output") or []):
            if item.get("type") in ("function_call", "computer_call"):
                ids.append(str(item.get("call_id")))
    return ids


__all__ = [
    "FUNCTION_NAMES",
    "RUN_FAULTS",
    "RUN_META",
    "CutPlan",
    "ItemPlan",
    "RunPlan",
    "ToolsPlan",
    "TurnPlan",
    "cassettes",
    "function_tool",
    "http_failure",
    "local_calls",
    "max_retries_of",
    "render",
    "replay_request",
    "run_plans",
    "tools_plans",
    "turn_events",
]
