"""How one Responses response is streamed: every item opened, grown and closed, between the lifecycle events.

A real stream announces the response (``response.created``, ``response.in_progress``), opens each output item
(``response.output_item.added``), grows it (argument, text, reasoning-summary and MCP argument deltas; a server
tool's progress events), closes it (``response.output_item.done``) and ends with one terminal event.
:func:`response_events` builds that stream for any response the generators make, item after item or side by side,
with chosen events sent twice, numbered in order. ``tools/cassettes/stream_sources.py`` builds the hand-named
``live-*`` cassettes the same way for the item kinds they use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, cast

from conformance.cassettes import JSONObject

TERMINAL_TYPES: Final = {"completed": "response.completed", "incomplete": "response.incomplete"}
# What a finished item's status may be; anything else the generators write is a fault on purpose.
DONE: Final = "response.output_item.done"
ADDED: Final = "response.output_item.added"


def terminal_type(status: object) -> str:
    """The terminal event a response of this status ends with (anything but completed or incomplete failed)."""
    return TERMINAL_TYPES.get(str(status), "response.failed")


def pieces(text: str, size: int) -> list[str]:
    """``text`` cut into deltas of ``size`` characters (one empty delta for empty text, as the API sends)."""
    step = max(1, size)
    return [text[start : start + step] for start in range(0, len(text), step)] or [""]


def opened(item: JSONObject) -> JSONObject:
    """The item as ``response.output_item.added`` announces it: in progress, with nothing generated yet."""
    kind = item.get("type")
    announced: JSONObject = {**item, "status": "in_progress"}
    if kind in ("function_call", "mcp_call"):
        announced["arguments"] = ""
    if kind == "mcp_call":
        announced["output"] = None
    if kind == "message":
        announced["content"] = []
    if kind == "reasoning":
        announced["summary"] = []
        announced.pop("status")
    return announced


def _place(index: int, item: JSONObject) -> JSONObject:
    return {"item_id": item.get("id"), "output_index": index}


def _growth(index: int, item: JSONObject, piece: int) -> list[JSONObject]:
    """The events between an item's added and done events, by item kind."""
    kind = item.get("type")
    place = _place(index, item)
    events: list[JSONObject] = []
    if kind == "function_call":
        arguments = str(item.get("arguments", ""))
        events += [
            {"type": "response.function_call_arguments.delta", **place, "delta": delta}
            for delta in pieces(arguments, piece)
        ]
        events.append({"type": "response.function_call_arguments.done", **place, "arguments": arguments})
    elif kind == "message":
        for content_index, part in enumerate(cast(list[JSONObject], item.get("content") or [])):
            text = str(part.get("text", ""))
            at = {**place, "content_index": content_index}
            events.append({"type": "response.content_part.added", **at, "part": {**part, "text": ""}})
            events += [
                {"type": "response.output_text.delta", **at, "delta": delta, "logprobs": []}
                for delta in pieces(text, piece)
            ]
            events.append({"type": "response.output_text.done", **at, "text": text, "logprobs": []})
            events.append({"type": "response.content_part.done", **at, "part": dict(part)})
    elif kind == "reasoning":
        for summary_index, part in enumerate(cast(list[JSONObject], item.get("summary") or [])):
            text = str(part.get("text", ""))
            at = {**place, "summary_index": summary_index}
            events.append({"type": "response.reasoning_summary_part.added", **at, "part": {**part, "text": ""}})
            events += [
                {"type": "response.reasoning_summary_text.delta", **at, "delta": delta} for delta in pieces(text, piece)
            ]
            events.append({"type": "response.reasoning_summary_text.done", **at, "text": text})
            events.append({"type": "response.reasoning_summary_part.done", **at, "part": dict(part)})
    elif kind == "web_search_call":
        events.append({"type": "response.web_search_call.in_progress", **place})
        events.append({"type": "response.web_search_call.searching", **place})
        if item.get("status") == "completed":
            events.append({"type": "response.web_search_call.completed", **place})
    elif kind == "mcp_call":
        arguments = str(item.get("arguments", ""))
        events.append({"type": "response.mcp_call.in_progress", **place})
        events += [
            {"type": "response.mcp_call_arguments.delta", **place, "delta": delta} for delta in pieces(arguments, piece)
        ]
        events.append({"type": "response.mcp_call_arguments.done", **place, "arguments": arguments})
        ended = "completed" if item.get("status") == "completed" else "failed"
        events.append({"type": f"response.mcp_call.{ended}", **place})
    return events


def item_events(index: int, item: JSONObject, *, piece: int = 5) -> list[JSONObject]:
    """One item's whole lifecycle at ``output_index`` ``index``, without sequence numbers."""
    return [
        {"type": ADDED, "output_index": index, "item": opened(item)},
        *_growth(index, item, piece),
        {"type": DONE, "output_index": index, "item": item},
    ]


def _closes(event: JSONObject) -> bool:
    return str(event["type"]).endswith((".done", ".completed", ".failed"))


def _side_by_side(per_item: list[list[JSONObject]]) -> list[JSONObject]:
    """Every item opened first, their growth events taken in turn, then every item closed in index order: items
    generated together, as the API may stream parallel calls."""
    opened_events = [events[0] for events in per_item]
    growing = [[event for event in events[1:] if not _closes(event)] for events in per_item]
    closing = [[event for event in events[1:] if _closes(event)] for events in per_item]
    merged = list(opened_events)
    for step in range(max((len(events) for events in growing), default=0)):
        merged.extend(events[step] for events in growing if step < len(events))
    for events in closing:
        merged.extend(events)
    return merged


def response_events(
    response: JSONObject, *, piece: int = 5, interleave: bool = False, repeats: Sequence[int] = ()
) -> list[JSONObject]:
    """The numbered event stream of ``response``: created and in_progress, every output item's lifecycle (side
    by side with ``interleave``), then the terminal event its status calls for.

    ``repeats`` are positions among the events between ``response.in_progress`` and the terminal event (0 is the
    first item event): each is sent a second time right after itself, with its own later sequence number, as a
    server resending a write might.
    """
    announced = {**response, "status": "in_progress", "output": []}
    for key in ("usage", "incomplete_details", "error"):
        announced.pop(key, None)
    output = cast(list[JSONObject], response.get("output") or [])
    per_item = [item_events(index, item, piece=piece) for index, item in enumerate(output)]
    body = _side_by_side(per_item) if interleave and per_item else [event for events in per_item for event in events]
    repeated = set(repeats)
    middle: list[JSONObject] = []
    for position, event in enumerate(body):
        middle.append(event)
        if position in repeated:
            middle.append(dict(event))
    events: list[JSONObject] = [
        {"type": "response.created", "response": announced},
        {"type": "response.in_progress", "response": announced},
        *middle,
        {"type": terminal_type(response.get("status")), "response": response},
    ]
    return [{**event, "sequence_number": number} for number, event in enumerate(events)]


__all__ = ["ADDED", "DONE", "item_events", "opened", "pieces", "response_events", "terminal_type"]
