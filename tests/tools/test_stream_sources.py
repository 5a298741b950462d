"""The live-* stream builder and the mid-event cut it relies on: valid lifecycles, faithful deltas, clear errors."""

from __future__ import annotations

import json

import httpx2
import pytest

from conformance import cassettes
from conformance.cassette_builder import function_call, message, response_object
from conformance.fake_responses import CassetteTransport
from tools.cassettes.stream_sources import LiveCassetteBuilder, lifecycle_events


def _response() -> dict[str, object]:
    call = function_call("lookup", {"reference": "a-long-reference"}, call_id="c1")
    return response_object("resp_1", [call, message("All done here.")])


def test_every_item_is_opened_grown_and_closed_in_order() -> None:
    events = lifecycle_events(_response())
    types = [event["type"] for event in events]
    assert types[:2] == ["response.created", "response.in_progress"] and types[-1] == "response.completed"
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    deltas = "".join(
        str(event["delta"]) for event in events if event["type"] == "response.function_call_arguments.delta"
    )
    assert json.loads(deltas) == {"reference": "a-long-reference"}
    text = "".join(str(event["delta"]) for event in events if event["type"] == "response.output_text.delta")
    assert text == "All done here."
    opened = [event["output_index"] for event in events if event["type"] == "response.output_item.added"]
    closed = [event["output_index"] for event in events if event["type"] == "response.output_item.done"]
    assert opened == closed == [0, 1]


def test_duplicated_events_get_their_own_sequence_numbers() -> None:
    events = lifecycle_events(_response(), duplicate=("response.output_item.done",))
    done = [event for event in events if event["type"] == "response.output_item.done"]
    assert len(done) == 4 and done[0]["item"] == done[1]["item"]
    assert len({event["sequence_number"] for event in events}) == len(events)


def test_incomplete_and_failed_turns_end_with_their_event() -> None:
    builder = LiveCassetteBuilder("x").live_turn(
        message("a"), status="incomplete", incomplete_reason="max_output_tokens"
    )
    cassette = builder.live_turn(message("b"), status="failed", error={"code": "server_error", "message": "m"}).build()
    first, second = (exchange.response.events or () for exchange in cassette.exchanges)
    assert first[-1]["type"] == "response.incomplete" and second[-1]["type"] == "response.failed"
    assert first[-1]["response"]["incomplete_details"] == {"reason": "max_output_tokens"}  # type: ignore[index]


def test_mid_event_cut_ends_the_body_inside_the_next_event() -> None:
    cassette = (
        LiveCassetteBuilder("cut")
        .live_turn(message("Hello there."))
        .fault("cut_stream", after_sequence=2, mid_event=True)
    ).build()
    transport = CassetteTransport(cassette, match="none")
    request = httpx2.Request("POST", "http://fake.invalid/v1/responses", json={"model": "m", "stream": True})
    body = transport.handle_request(request).read()
    *whole, tail = body.split(b"\n\n")
    assert len(whole) == 3 and tail.startswith(b"event: ") and not tail.endswith(b"}")


def test_mid_event_cut_needs_a_following_event() -> None:
    cassette = LiveCassetteBuilder("cut").live_turn(message("Hi")).build()
    last = max(int(str(event["sequence_number"])) for event in cassette.exchanges[0].response.events or ())
    text = cassette.dumps().replace(
        '"exchange":0,',
        '"exchange":0,"faults":[{"kind":"cut_stream","after_sequence":' + str(last) + ',"mid_event":true}],',
    )
    with pytest.raises(cassettes.CassetteError, match="mid_event needs an event after sequence"):
        cassettes.loads(text, "cut.jsonl")


def test_interleaved_items_alternate_their_deltas_and_close_in_order() -> None:
    calls = [function_call("lookup", {"reference": f"reference-{n}"}, call_id=f"c{n}") for n in (1, 2)]
    events = lifecycle_events(response_object("resp_1", calls), interleave=True)
    deltas = [event for event in events if event["type"] == "response.function_call_arguments.delta"]
    assert [event["output_index"] for event in deltas[:4]] == [0, 1, 0, 1]
    for index, call in enumerate(calls):
        joined = "".join(str(event["delta"]) for event in deltas if event["output_index"] == index)
        assert joined == call["arguments"]
    closed = [event["output_index"] for event in events if event["type"] == "response.output_item.done"]
    first_close = next(n for n, event in enumerate(events) if str(event["type"]).endswith(".done"))
    last_delta = max(n for n, event in enumerate(events) if event["type"] == "response.function_call_arguments.delta")
    assert closed == [0, 1] and first_close > last_delta
