"""Builder sources of the ``live-*`` cassettes: Responses streams in the shape real traffic has.

The scenarios in ``runner_sources`` stream each item as one ``response.output_item.done`` event. A real stream
announces the response (``response.created``, ``response.in_progress``), opens every item with
``response.output_item.added``, grows it with deltas (``response.function_call_arguments.delta``/``.done`` for a
call, ``response.content_part.added``, ``response.output_text.delta``/``.done`` and ``response.content_part.done``
for a message), closes it with ``response.output_item.done`` and ends with ``response.completed``,
``response.incomplete`` or ``response.failed``. This module builds such streams, with reasoning items, so what
the runner does with deltas, unfinished calls and malformed arguments is exercised in every mode.

The sources register into ``runner_sources.RUNNER`` like every other runner scenario, so the committed files under
``fixtures/streams/`` are regenerated (``python -m tools.cassettes --write``) and drift-checked the same way.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Self, cast

from conformance.cassette_builder import CassetteBuilder, function_call, message, reasoning, response_object
from conformance.cassettes import Cassette, Exchange, JSONObject, RecordedRequest, RecordedResponse
from conformance.streams.strategies import (
    FUNCTION_NAMES,
    CutPlan,
    ItemKind,
    ItemPlan,
    RunPlan,
    ToolsPlan,
    TurnPlan,
    render,
    turn_events,
)
from tools.cassettes.runner_sources import RUNNER

# Deltas are cut into pieces of this many characters, so every call and text arrives in several events.
DELTA_SIZE = 5


def _pieces(text: str) -> list[str]:
    return [text[start : start + DELTA_SIZE] for start in range(0, len(text), DELTA_SIZE)] or [""]


def _opened(item: JSONObject) -> JSONObject:
    """The item as ``response.output_item.added`` announces it: in progress, with nothing generated yet."""
    kind = item["type"]
    if kind == "function_call":
        return {**item, "arguments": "", "status": "in_progress"}
    if kind == "message":
        return {**item, "content": [], "status": "in_progress"}
    return dict(item)


def _item_events(index: int, item: JSONObject) -> list[JSONObject]:
    """Every event of one item's lifecycle, without sequence numbers (the caller numbers the whole stream)."""
    item_id = item.get("id")
    events: list[JSONObject] = [{"type": "response.output_item.added", "output_index": index, "item": _opened(item)}]
    if item["type"] == "function_call":
        arguments = str(item["arguments"])
        for piece in _pieces(arguments):
            events.append(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item_id,
                    "output_index": index,
                    "delta": piece,
                }
            )
        events.append(
            {
                "type": "response.function_call_arguments.done",
                "item_id": item_id,
                "output_index": index,
                "arguments": arguments,
            }
        )
    elif item["type"] == "message":
        parts = cast(list[JSONObject], item["content"])
        for content_index, part in enumerate(parts):
            text = str(part["text"])
            place = {"item_id": item_id, "output_index": index, "content_index": content_index}
            empty = {**part, "text": ""}
            events.append({"type": "response.content_part.added", **place, "part": empty})
            for piece in _pieces(text):
                events.append({"type": "response.output_text.delta", **place, "delta": piece, "logprobs": []})
            events.append({"type": "response.output_text.done", **place, "text": text, "logprobs": []})
            events.append({"type": "response.content_part.done", **place, "part": dict(part)})
    events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    return events


def _closes(event: JSONObject) -> bool:
    return str(event["type"]).endswith(".done")


def _interleaved(per_item: list[list[JSONObject]]) -> list[JSONObject]:
    """Every item opened first, their deltas taken in turn, then each item closed in index order: the items
    are generated side by side, as the API may stream parallel calls."""
    opened = [events[0] for events in per_item]
    closing = [[event for event in events if _closes(event)] for events in per_item]
    growing = [[event for event in events[1:] if not _closes(event)] for events in per_item]
    merged: list[JSONObject] = list(opened)
    for step in range(max(len(events) for events in growing)):
        merged.extend(events[step] for events in growing if step < len(events))
    for events in closing:
        merged.extend(events)
    return merged


def lifecycle_events(
    response: JSONObject, *, duplicate: tuple[str, ...] = (), interleave: bool = False
) -> list[JSONObject]:
    """The full event stream of ``response``: lifecycle events, every item opened, grown and closed in index
    order (side by side with ``interleave``), then the terminal event for its status. Events whose type is in
    ``duplicate`` are sent twice (the second copy with its own, later sequence number), as a server retrying a
    write might."""
    announced = {**response, "status": "in_progress", "output": []}
    announced.pop("usage", None)
    announced.pop("incomplete_details", None)
    events: list[JSONObject] = [
        {"type": "response.created", "response": announced},
        {"type": "response.in_progress", "response": announced},
    ]
    per_item = [_item_events(index, item) for index, item in enumerate(cast(list[JSONObject], response["output"]))]
    ordered = _interleaved(per_item) if interleave and per_item else [event for item in per_item for event in item]
    for event in ordered:
        events.append(event)
        if event["type"] in duplicate:
            events.append(dict(event))
    terminal = {"completed": "response.completed", "incomplete": "response.incomplete"}.get(
        str(response["status"]), "response.failed"
    )
    events.append({"type": terminal, "response": response})
    return [{**event, "sequence_number": number} for number, event in enumerate(events)]


class LiveCassetteBuilder(CassetteBuilder):
    """A cassette builder whose ``live_turn`` streams an exchange the way the API does (see the module doc)."""

    def live_turn(
        self,
        *items: JSONObject,
        status: str = "completed",
        duplicate: tuple[str, ...] = (),
        interleave: bool = False,
        incomplete_reason: str | None = None,
        error: JSONObject | None = None,
    ) -> Self:
        """One Responses exchange whose output is ``items``, streamed with deltas and item lifecycles.

        ``status`` picks the terminal event (``incomplete`` carries ``incomplete_reason``, ``failed`` carries
        ``error``); ``duplicate`` names event types that arrive twice; ``interleave`` streams the items side
        by side.
        """
        response = response_object(f"resp_{len(self._exchanges) + 1}", list(items), status=status)
        if incomplete_reason is not None:
            response["incomplete_details"] = {"reason": incomplete_reason}
        if error is not None:
            response["error"] = error
        events = tuple(lifecycle_events(response, duplicate=duplicate, interleave=interleave))
        request = RecordedRequest("POST", "/v1/responses", None)
        self._exchanges.append(Exchange(request, RecordedResponse(200, events=events)))
        return self


def _live(name: str, description: str) -> LiveCassetteBuilder:
    return LiveCassetteBuilder(name, description=description)


def lookup(call_id: str, *, arguments: object = None, status: str = "completed") -> JSONObject:
    """A ``lookup`` call passing its own ID as ``reference`` (the harness timeline convention), or the given
    (possibly malformed) ``arguments``, with the given item status."""
    item = function_call("lookup", {"reference": call_id} if arguments is None else arguments, call_id=call_id)
    return {**item, "status": status}


def _thinking(item_id: str = "rs_1") -> JSONObject:
    return reasoning(item_id, encrypted_content="opaque-reasoning")


def _answer(text: str = "The reference is c1.") -> JSONObject:
    return message(text, item_id="msg_answer")


# ------------------------------------------------------------------------------------------ well-formed traffic


@RUNNER.source("live-function-call")
def _live_function_call() -> LiveCassetteBuilder:
    return (
        _live("live-function-call", "Reasoning, commentary and one call streamed with deltas; then a streamed answer.")
        .live_turn(_thinking(), message("Looking it up.", item_id="msg_note", phase="commentary"), lookup("c1"))
        .live_turn(_answer())
    )


@RUNNER.source("live-two-calls")
def _live_two_calls() -> LiveCassetteBuilder:
    return (
        _live("live-two-calls", "Two calls, each streamed with argument deltas, then a streamed answer.")
        .live_turn(lookup("c1"), lookup("c2"))
        .live_turn(_answer("Both found."))
    )


@RUNNER.source("live-interleaved-calls")
def _live_interleaved() -> LiveCassetteBuilder:
    return (
        _live("live-interleaved-calls", "Two calls opened together, their argument deltas alternating, then closed.")
        .live_turn(lookup("c1"), lookup("c2"), interleave=True)
        .live_turn(_answer("Both found."))
    )


# ------------------------------------------------------------------------------------------ faults


@RUNNER.source("live-arguments-truncated")
def _live_truncated() -> LiveCassetteBuilder:
    return _live(
        "live-arguments-truncated", "A completed call whose arguments stop mid-object; an answer never requested."
    ).live_turn(lookup("c1", arguments='{"reference":"c'), _answer("unreachable"))


@RUNNER.source("live-arguments-invalid")
def _live_invalid() -> LiveCassetteBuilder:
    return (
        _live("live-arguments-invalid", "A completed call whose arguments are not JSON (single quotes, NaN).")
        .live_turn(lookup("c1", arguments="{'reference': NaN}"))
        .live_turn(_answer("unreachable"))
    )


@RUNNER.source("live-arguments-not-object")
def _live_not_object() -> LiveCassetteBuilder:
    return (
        _live("live-arguments-not-object", "A completed call whose arguments are valid JSON but a list, not an object.")
        .live_turn(lookup("c1", arguments='["c1"]'))
        .live_turn(_answer("unreachable"))
    )


@RUNNER.source("live-call-in-progress")
def _live_in_progress() -> LiveCassetteBuilder:
    return (
        _live("live-call-in-progress", "The call is closed with status in_progress in a completed response.")
        .live_turn(lookup("c1", status="in_progress"))
        .live_turn(_answer("unreachable"))
    )


@RUNNER.source("live-call-incomplete")
def _live_call_incomplete() -> LiveCassetteBuilder:
    return (
        _live("live-call-incomplete", "The output limit cuts the call: status incomplete in an incomplete response.")
        .live_turn(
            lookup("c1", arguments='{"refer', status="incomplete"),
            status="incomplete",
            incomplete_reason="max_output_tokens",
        )
        .live_turn(_answer("unreachable"))
    )


@RUNNER.source("live-response-incomplete")
def _live_response_incomplete() -> LiveCassetteBuilder:
    return (
        _live("live-response-incomplete", "A completed call, then the response ends incomplete (output limit).")
        .live_turn(
            lookup("c1"),
            message("Partial", item_id="msg_cut"),
            status="incomplete",
            incomplete_reason="max_output_tokens",
        )
        .live_turn(_answer("unreachable"))
    )


@RUNNER.source("live-response-failed")
def _live_response_failed() -> LiveCassetteBuilder:
    return (
        _live("live-response-failed", "A completed call, then the response fails with a server error.")
        .live_turn(lookup("c1"), status="failed", error={"code": "server_error", "message": "The model failed."})
        .live_turn(_answer("unreachable"))
    )


@RUNNER.source("live-cut-mid-event")
def _live_cut_mid_event() -> LiveCassetteBuilder:
    # Sequence 10 is the call's output_item.done (after created, in_progress, the reasoning item's added and
    # done, the call's added, four argument deltas and arguments done); the stream ends halfway through it.
    builder = _live("live-cut-mid-event", "The stream ends in the middle of the call's done event.").live_turn(
        _thinking(), lookup("c1")
    )
    # A plain request never sees the cut (it gets the whole response), so it goes on to this answer.
    return builder.fault("cut_stream", after_sequence=9, mid_event=True).live_turn(_answer())


@RUNNER.source("live-http-error-then-retry")
def _live_retry() -> LiveCassetteBuilder:
    builder = _live("live-http-error-then-retry", "HTTP 503 on the first request; the retry streams one call.")
    builder.http_error(503)
    return builder.live_turn(lookup("c1")).live_turn(_answer())


@RUNNER.source("live-duplicated-events")
def _live_duplicated() -> LiveCassetteBuilder:
    return (
        _live("live-duplicated-events", "The call's arguments done and output_item.done events arrive twice.")
        .live_turn(
            lookup("c1"),
            duplicate=("response.function_call_arguments.done", "response.output_item.done"),
        )
        .live_turn(_answer())
    )


# ------------------------------------------------------------------------------------------ a long run to shrink


class _RenderedBuilder(CassetteBuilder):
    """A builder holding an already rendered cassette (the generated-stream renderer writes whole runs)."""

    @classmethod
    def of(cls, cassette: Cassette) -> Self:
        builder = cls(cassette.scenario, description=cassette.description, meta=dict(cassette.meta))
        builder._exchanges = list(cassette.exchanges)
        return builder


def long_run(turns: int = 10, *, cut_at: int | None = None) -> Cassette:
    """A long run in the shape of real traffic: ``turns`` responses with commentary and two calls each (functions,
    browser and computer in turn), every delta five characters, then an answer; with ``cut_at``, that response's
    stream ends halfway through the event after its first call completed."""
    tools = ToolsPlan(functions=FUNCTION_NAMES, browser=True, computer=True)
    kinds: tuple[ItemKind, ...] = ("function", "browser", "computer")
    plans: list[TurnPlan] = []
    for number in range(turns):
        items = (
            ItemPlan("commentary", text=f"Step {number + 1}: looking at the next two references."),
            ItemPlan(kinds[number % 3], function=FUNCTION_NAMES[number % 2]),
            ItemPlan("function", function=FUNCTION_NAMES[(number + 1) % 2]),
        )
        plans.append(TurnPlan(items))
    plans.append(TurnPlan((ItemPlan("message", text="All references are checked."),)))
    if cut_at is not None:
        first = 1 + 3 * cut_at
        events = turn_events(plans[cut_at], cut_at + 1, first)
        # The first call's done event, then the stream breaks inside the next event.
        done = next(
            position
            for position, event in enumerate(events)
            if event["type"] == "response.output_item.done" and event.get("output_index") == 1
        )
        plans[cut_at] = replace(plans[cut_at], cut=CutPlan(done, mid_event=True))
    return render(RunPlan(tools, tuple(plans)))


@RUNNER.source("long-run-cut-stream")
def _long_run_cut_stream() -> CassetteBuilder:
    # What `driverkit shrink --mode sync-stream` reduces to a few events (tests/conformance/test_shrink.py): a
    # streamed run stops where the stream broke, while the plain run, which gets whole responses, answers.
    cassette = long_run(cut_at=6)
    described = replace(
        cassette,
        scenario="long-run-cut-stream",
        description="Ten responses of commentary and two calls, then an answer; response 6's stream breaks mid-event.",
    )
    return _RenderedBuilder.of(described)
