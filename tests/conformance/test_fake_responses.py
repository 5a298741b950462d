"""The fake transport: both modes from one exchange, faults, divergence bookkeeping, and the respx adapter."""

from __future__ import annotations

import asyncio
import json

import httpx
import openai
import pytest
import respx

from conformance.cassette_builder import CassetteBuilder, function_call, message
from conformance.fake_responses import (
    CassetteTransport,
    RespxTransport,
    fake_async_client,
    fake_client,
)

CALL = function_call("lookup", {"reference": "A"}, call_id="c1")


def _stream_types(client: openai.OpenAI) -> list[str]:
    stream = client.responses.create(model="m", input="hi", stream=True)
    return [event.type for event in stream]


def test_one_exchange_serves_plain_and_streamed_requests() -> None:
    cassette = CassetteBuilder("x").turn(CALL).turn(CALL).build()
    transport = CassetteTransport(cassette)
    client = fake_client(transport)
    plain = client.responses.create(model="m", input="hi")
    assert plain.output[0].type == "function_call"
    assert _stream_types(client) == ["response.created", "response.output_item.done", "response.completed"]
    assert [request.streamed for request in transport.sent] == [False, True]


def test_http_status_fault_and_divergence_when_cassette_runs_out() -> None:
    cassette = CassetteBuilder("x").http_error(503).build()
    transport = CassetteTransport(cassette)
    client = fake_client(transport)
    with pytest.raises(openai.InternalServerError):
        client.responses.create(model="m", input="hi")
    with pytest.raises(openai.BadRequestError):
        client.responses.create(model="m", input="hi")
    assert transport.divergence is not None and transport.divergence.index == 1
    assert "only 1 exchange" in transport.divergence.reason


def test_index_drop_and_completed_output_faults_rewrite_the_stream() -> None:
    other = function_call("lookup", {"reference": "B"}, call_id="c1")
    cassette = (
        CassetteBuilder("x")
        .turn(CALL, message("m"))
        .fault("output_index", sequence=1, output_index=4)
        .fault("completed_output", output=[other])
        .build()
    )
    transport = CassetteTransport(cassette)
    events = list(fake_client(transport).responses.create(model="m", input="hi", stream=True))
    assert events[1].output_index == 4  # type: ignore[union-attr]
    assert events[-1].response.output[0].arguments == other["arguments"]  # type: ignore[union-attr]


def test_recorded_body_mismatch_is_a_divergence() -> None:
    cassette = CassetteBuilder("x").turn(message("m"), request_body={"model": "m", "input": "expected"}).build()
    transport = CassetteTransport(cassette)
    with pytest.raises(openai.BadRequestError):
        fake_client(transport).responses.create(model="m", input="other")
    assert transport.divergence is not None
    assert transport.divergence.expected == {"model": "m", "input": "expected"}
    assert transport.divergence.actual == {"model": "m", "input": "other"}


def test_stream_field_is_ignored_when_matching() -> None:
    cassette = CassetteBuilder("x").turn(message("m"), request_body={"model": "m", "input": "hi"}).build()
    transport = CassetteTransport(cassette)
    list(fake_client(transport).responses.create(model="m", input="hi", stream=True))
    assert transport.divergence is None


def test_async_client_is_served() -> None:
    transport = CassetteTransport(CassetteBuilder("x").turn(message("hello")).build())

    async def go() -> str:
        response = await fake_async_client(transport).responses.create(model="m", input="hi")
        return response.output_text

    assert asyncio.run(go()) == "hello"


def _respx_router() -> respx.Router:
    router = respx.Router(base_url="http://driverkit.invalid/v1", assert_all_called=False)
    body = {
        "id": "r1",
        "object": "response",
        "status": "completed",
        "output": [message("from respx")],
        "model": "m",
        "created_at": 0,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    router.post("/responses", name="responses").mock(
        side_effect=[httpx.Response(500, json={"error": {}}), httpx.Response(200, json=body)]
    )
    return router


def test_respx_adapter_routes_side_effects_and_records_calls() -> None:
    router = _respx_router()
    client = fake_client(RespxTransport(router), max_retries=1)  # type: ignore[arg-type]
    response = client.responses.create(model="m", input="hi")
    assert response.output_text == "from respx"
    route = router.routes["responses"]
    assert route.call_count == 2
    assert json.loads(route.calls.last.request.content)["input"] == "hi"


def test_respx_adapter_async() -> None:
    router = _respx_router()

    async def go() -> str:
        client = fake_async_client(RespxTransport(router), max_retries=1)  # type: ignore[arg-type]
        return (await client.responses.create(model="m", input="hi")).output_text

    assert asyncio.run(go()) == "from respx"
    assert router.routes["responses"].call_count == 2
