"""Author a cassette in a few lines: say what the model answers on each turn, get a valid streamed recording.

    cassette = (
        CassetteBuilder("lookup-then-answer")
        .turn(function_call("lookup", {"reference": "A"}, call_id="c1"))
        .turn(message("The answer is A."))
        .build()
    )

Each ``turn`` is one Responses request/response exchange. Its output items are streamed as ``response.created``,
one ``response.output_item.done`` per item and ``response.completed``, all with increasing sequence numbers, so
the same exchange can be served streamed or as a plain JSON body. Faults target the turn just added.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Final, Self

from conformance.cassettes import (
    Cassette,
    Exchange,
    Fault,
    FaultKind,
    JSONObject,
    RecordedRequest,
    RecordedResponse,
)

DEFAULT_USAGE: JSONObject = {
    "input_tokens": 10,
    "output_tokens": 5,
    "total_tokens": 15,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens_details": {"reasoning_tokens": 0},
}


# ------------------------------------------------------------------------------------------ output items


def function_call(name: str, arguments: object, *, call_id: str, item_id: str | None = None) -> JSONObject:
    """A completed function call; ``arguments`` is JSON-encoded unless it is already a string (malformed on purpose)."""
    encoded = arguments if isinstance(arguments, str) else json.dumps(arguments, separators=(",", ":"))
    return {
        "type": "function_call",
        "id": item_id or f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": encoded,
        "status": "completed",
    }


def message(text: str, *, item_id: str = "msg_final", phase: str | None = None) -> JSONObject:
    item: JSONObject = {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    if phase is not None:
        item["phase"] = phase
    return item


def computer_call(
    action: JSONObject | list[JSONObject], *, call_id: str, safety_checks: list[JSONObject] | None = None
) -> JSONObject:
    """A completed native computer call: one ``action`` (legacy form), or a list sent as the modern ``actions`` batch.

    ``safety_checks`` become the call's ``pending_safety_checks`` (``{"id", "code", "message"}`` objects).
    """
    item: JSONObject = {"type": "computer_call", "id": f"cu_{call_id}", "call_id": call_id}
    if isinstance(action, list):
        item["actions"] = list(action)
    else:
        item["action"] = action
    item["pending_safety_checks"] = list(safety_checks or [])
    item["status"] = "completed"
    return item


def web_search_call(item_id: str, *, status: str = "completed", query: str = "opening hours") -> JSONObject:
    return {
        "type": "web_search_call",
        "id": item_id,
        "status": status,
        "action": {"type": "search", "query": query},
    }


def image_generation_call(item_id: str, *, result: str = "aW1n") -> JSONObject:
    return {"type": "image_generation_call", "id": item_id, "status": "completed", "result": result}


def mcp_approval_request(item_id: str, *, server_label: str, name: str, arguments: object) -> JSONObject:
    return {
        "type": "mcp_approval_request",
        "id": item_id,
        "server_label": server_label,
        "name": name,
        "arguments": json.dumps(arguments, separators=(",", ":")),
    }


def mcp_call(
    item_id: str,
    *,
    server_label: str,
    name: str,
    arguments: object,
    output: str = "ok",
    approval_request_id: str | None = None,
) -> JSONObject:
    item: JSONObject = {
        "type": "mcp_call",
        "id": item_id,
        "server_label": server_label,
        "name": name,
        "arguments": json.dumps(arguments, separators=(",", ":")),
        "output": output,
        "status": "completed",
    }
    if approval_request_id is not None:
        item["approval_request_id"] = approval_request_id
    return item


def reasoning(item_id: str, *, encrypted_content: str = "opaque") -> JSONObject:
    return {"type": "reasoning", "id": item_id, "summary": [], "encrypted_content": encrypted_content}


# ------------------------------------------------------------------------------------------ responses


def response_object(
    response_id: str, output: list[JSONObject], *, status: str = "completed", usage: JSONObject | None = None
) -> JSONObject:
    body: JSONObject = {
        "id": response_id,
        "object": "response",
        "created_at": 1_700_000_000,
        "model": "gpt-test",
        "status": status,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    if usage is not None:
        body["usage"] = usage
    return body


def stream_events(response: JSONObject, *, indices: list[int] | None = None) -> list[JSONObject]:
    """The SSE events for ``response``: created, each item done (at ``indices`` if given), terminal event."""
    output = list(response.get("output") or [])  # type: ignore[call-overload]
    positions = indices if indices is not None else list(range(len(output)))
    created = {**response, "status": "in_progress", "output": []}
    created.pop("usage", None)
    events: list[JSONObject] = [{"type": "response.created", "sequence_number": 0, "response": created}]
    for position, item in zip(positions, output, strict=True):
        events.append(
            {
                "type": "response.output_item.done",
                "sequence_number": len(events),
                "output_index": position,
                "item": item,
            }
        )
    terminal = {"completed": "response.completed", "incomplete": "response.incomplete"}.get(
        str(response["status"]), "response.failed"
    )
    events.append({"type": terminal, "sequence_number": len(events), "response": response})
    return events


def decision_body(choice: str | None, *, decision_id: str = "dec_1", model: str = "gpt-test") -> JSONObject:
    """A Decisions answer selecting ``choice``, or a refusal when ``choice`` is None."""
    answer: JSONObject
    if choice is None:
        answer = {"type": "refusal", "name": "next_action", "refusal": "I cannot choose."}
    else:
        answer = {
            "type": "choice",
            "name": "next_action",
            "choice": choice,
            "confidence": 0.9,
            "probabilities": [{"value": choice, "probability": 0.9}],
        }
    return {
        "id": decision_id,
        "object": "decision",
        "model": model,
        "answers": [answer],
        "usage": {
            "input_tokens": 20,
            "output_tokens": 2,
            "total_tokens": 22,
            "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


# The header ``meta`` key of the run an authored cassette answers (see :meth:`CassetteBuilder.replayable`).
REPLAY_REQUEST: Final = "replay_request"


class CassetteBuilder:
    """Accumulate exchanges for one scenario; every method returns the builder so a scenario reads as one chain."""

    def __init__(self, scenario: str, *, description: str = "", meta: JSONObject | None = None) -> None:
        self._scenario = scenario
        self._description = description
        self._meta = dict(meta or {})
        self._exchanges: list[Exchange] = []

    def turn(
        self,
        *items: JSONObject,
        status: str = "completed",
        usage: JSONObject | None = DEFAULT_USAGE,
        indices: list[int] | None = None,
        request_body: JSONObject | None = None,
    ) -> Self:
        """One Responses exchange whose output is ``items``.

        ``indices`` gives each item's stream ``output_index`` in the order the items are streamed; the completed
        response then lists the items by index, as the API does, so out-of-order delivery can be authored.
        """
        ordered = list(items)
        if indices is not None:
            if sorted(indices) != list(range(len(items))):
                raise ValueError("indices must be a permutation of the item positions; use drop_event for gaps")
            ordered = [item for _, item in sorted(zip(indices, items, strict=True), key=lambda pair: pair[0])]
        response = response_object(f"resp_{len(self._exchanges) + 1}", ordered, status=status, usage=usage)
        events = tuple(stream_events({**response, "output": list(items)}, indices=indices))
        if indices is not None:
            # The terminal event must carry the index-ordered output, not the streaming order.
            events = (*events[:-1], {**events[-1], "response": response})
        request = RecordedRequest("POST", "/v1/responses", request_body)
        self._exchanges.append(Exchange(request, RecordedResponse(200, events=events)))
        return self

    def decision(self, choice: str | None, *, request_body: JSONObject | None = None) -> Self:
        """One Decisions exchange answering ``choice`` (or refusing)."""
        body = decision_body(choice, decision_id=f"dec_{len(self._exchanges) + 1}")
        request = RecordedRequest("POST", "/v1/decisions", request_body)
        self._exchanges.append(Exchange(request, RecordedResponse(200, body=body)))
        return self

    def replayable(
        self,
        *,
        model: str,
        input: str | list[JSONObject],
        browser_members: Sequence[str] = (),
        functions: Sequence[Mapping[str, object]] = (),
        **params: object,
    ) -> Self:
        """Store the run this authored cassette answers (the model, input, browser members and function tools a
        runner is given), so ``driverkit replay`` can rebuild it. An authored cassette holds no requests, so a
        replay of it checks the run's course (requests made, calls executed, final text), not request bodies.
        """
        tools: list[JSONObject] = [{"type": "function", "name": f"browser_{member}"} for member in browser_members]
        request: JSONObject = {"model": model, "input": input, **params, "tools": [*tools, *map(dict, functions)]}
        self._meta[REPLAY_REQUEST] = request
        return self

    def fault(self, kind: FaultKind, **fields: object) -> Self:
        """Inject a fault into the last exchange added."""
        if not self._exchanges:
            raise ValueError("add a turn before adding a fault to it")
        last = self._exchanges[-1]
        self._exchanges[-1] = Exchange(last.request, last.response, (*last.faults, Fault(kind, fields)))
        return self

    def http_error(self, status: int, detail: str = "injected HTTP failure") -> Self:
        """An exchange that fails with an HTTP error (its recorded turn is never delivered)."""
        return self.turn(message("unreachable")).fault("http_status", status=status, message=detail)

    def build(self) -> Cassette:
        """The finished cassette, validated by a round trip through the loader."""
        from conformance.cassettes import loads

        cassette = Cassette(self._scenario, tuple(self._exchanges), self._description, self._meta)
        return loads(cassette.dumps(), f"<builder {self._scenario}>")


__all__ = [
    "DEFAULT_USAGE",
    "REPLAY_REQUEST",
    "CassetteBuilder",
    "computer_call",
    "decision_body",
    "function_call",
    "image_generation_call",
    "mcp_approval_request",
    "mcp_call",
    "message",
    "reasoning",
    "response_object",
    "stream_events",
    "web_search_call",
]
