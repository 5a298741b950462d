"""Recording a run: exact streamed events, no credentials on disk, optional image placeholders, failures kept."""

from __future__ import annotations

import asyncio
from pathlib import Path

import openai
import pytest
from openai.lib.responses_tool_runner import (
    AsyncRegisteredFunction,
    AsyncResponsesToolRunner,
    RegisteredFunction,
    ResponsesToolRunner,
    ToolRunnerError,
)

from conformance import cassettes
from conformance.cassette_builder import CassetteBuilder, function_call, message
from conformance.contracts.runner._scenario import function_tool
from conformance.fake_responses import CassetteTransport
from conformance.recording import PLACEHOLDER_IMAGE_URL, parse_sse, record_async_client, record_client

SECRET_KEY = "sk-proj-SECRETsecret1234567890"
IMAGE = "data:image/png;base64," + "A" * 4000


def _source() -> cassettes.Cassette:
    return (
        CassetteBuilder("source")
        .turn(function_call("lookup", {"reference": "c1"}, call_id="c1"))
        .turn(message("Done."))
        .build()
    )


def _runner() -> ResponsesToolRunner:
    function = RegisteredFunction(tool=function_tool("lookup"), execute=lambda arguments: "ok")  # type: ignore[arg-type]
    return ResponsesToolRunner(functions=[function])


def _record(
    path: Path,
    source: cassettes.Cassette,
    *,
    stream: bool = True,
    redact_images: bool = False,
    params: dict[str, object] | None = None,
) -> None:
    with record_client(
        path,
        redact_images=redact_images,
        transport=CassetteTransport(source, match="endpoint"),
        api_key=SECRET_KEY,
        organization="org-SECRETORG",
        project="proj_SECRETPROJECT",
        base_url="http://recorded.invalid/v1",
        default_headers={"Cookie": "session=SECRETCOOKIE"},
        max_retries=0,
    ) as client:
        _runner().run(client, params or {"model": "m", "input": "hi"}, stream=stream)


def test_streamed_events_are_recorded_exactly_in_order(tmp_path: Path) -> None:
    source = _source()
    _record(tmp_path / "r.jsonl", source)
    recorded = cassettes.load(tmp_path / "r.jsonl")
    assert [exchange.response.events for exchange in recorded.exchanges] == [
        exchange.response.events for exchange in source.exchanges
    ]
    assert recorded.exchanges[0].request.body is not None
    assert recorded.exchanges[0].request.body["stream"] is True


def test_plain_responses_are_recorded_as_bodies(tmp_path: Path) -> None:
    _record(tmp_path / "r.jsonl", _source(), stream=False)
    recorded = cassettes.load(tmp_path / "r.jsonl")
    assert all(exchange.response.body is not None for exchange in recorded.exchanges)


def test_no_credentials_reach_the_file(tmp_path: Path) -> None:
    mcp = {
        "type": "mcp",
        "server_label": "docs",
        "server_url": "https://mcp.example/sse",
        "authorization": "SECRETMCPTOKEN",
        "headers": {"X-Api-Key": "SECRETHEADER"},
        "require_approval": "never",
    }
    source = CassetteBuilder("s").turn(message("Done.")).build()
    _record(tmp_path / "r.jsonl", source, params={"model": "m", "input": f"my key is {SECRET_KEY}", "tools": [mcp]})
    text = (tmp_path / "r.jsonl").read_text()
    for secret in ("SECRETsecret", "SECRETORG", "SECRETPROJECT", "SECRETCOOKIE", "SECRETMCPTOKEN", "SECRETHEADER"):
        assert secret not in text, secret
    assert "mcp.example" in text  # non-secret request data is kept


def test_images_are_replaced_only_when_asked(tmp_path: Path) -> None:
    params = {
        "model": "m",
        "input": [{"role": "user", "content": [{"type": "input_image", "image_url": IMAGE, "detail": "low"}]}],
    }
    _record(tmp_path / "kept.jsonl", _source(), params=params)
    _record(tmp_path / "small.jsonl", _source(), params=params, redact_images=True)
    assert IMAGE in (tmp_path / "kept.jsonl").read_text()
    small = (tmp_path / "small.jsonl").read_text()
    assert IMAGE not in small and PLACEHOLDER_IMAGE_URL in small
    assert len(small) < len((tmp_path / "kept.jsonl").read_text()) - 3000


def test_broken_stream_and_failed_run_are_still_recorded(tmp_path: Path) -> None:
    source = (
        CassetteBuilder("s")
        .turn(function_call("lookup", {"reference": "c1"}, call_id="c1"), message("x"))
        .fault("cut_stream", after_sequence=1, error=True)
        .build()
    )
    with pytest.raises(ToolRunnerError):
        _record(tmp_path / "r.jsonl", source)
    recorded = cassettes.load(tmp_path / "r.jsonl")
    (exchange,) = recorded.exchanges
    assert [event["type"] for event in exchange.response.events or ()] == [
        "response.created",
        "response.output_item.done",
    ]
    assert exchange.faults and exchange.faults[0].kind == "cut_stream" and exchange.faults[0].fields["error"]


def test_http_errors_are_recorded(tmp_path: Path) -> None:
    source = CassetteBuilder("s").http_error(400, "bad thing").build()
    with pytest.raises(ToolRunnerError):
        _record(tmp_path / "r.jsonl", source)
    (exchange,) = cassettes.load(tmp_path / "r.jsonl").exchanges
    assert exchange.response.status == 400 and exchange.response.body is not None


def test_async_recording(tmp_path: Path) -> None:
    async def execute(arguments: dict[str, object]) -> str:
        return "ok"

    async def go() -> str:
        async with record_async_client(
            tmp_path / "r.jsonl",
            transport=CassetteTransport(_source(), match="endpoint"),
            api_key=SECRET_KEY,
            base_url="http://recorded.invalid/v1",
            max_retries=0,
        ) as client:
            runner = AsyncResponsesToolRunner(
                functions=[AsyncRegisteredFunction(tool=function_tool("lookup"), execute=execute)]  # type: ignore[arg-type]
            )
            response = await runner.run(client, {"model": "m", "input": "hi"}, stream=True, eager=True)
            return response.output_text

    assert asyncio.run(go()) == "Done."
    assert len(cassettes.load(tmp_path / "r.jsonl").exchanges) == 2
    assert SECRET_KEY not in (tmp_path / "r.jsonl").read_text()


def test_parse_sse_handles_framing_variants() -> None:
    raw = b'event: a\r\ndata: {"type":"a"}\r\n\r\n: comment\n\ndata: [DONE]\n\ndata: {"type":\ndata: "b"}\n\n'
    assert parse_sse(raw) == [{"type": "a"}, {"type": "b"}]


def test_record_client_returns_a_real_client(tmp_path: Path) -> None:
    with record_client(tmp_path / "r.jsonl", api_key="sk-x", transport=CassetteTransport(_source())) as client:
        assert isinstance(client, openai.OpenAI)
    assert cassettes.load(tmp_path / "r.jsonl").exchanges == ()
