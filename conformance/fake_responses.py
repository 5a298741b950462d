"""A fake Responses API: an ``httpx2`` transport that serves a cassette to a real ``openai`` client.

openai 3.x sends its traffic through ``httpx2``, so the fake sits at the transport layer: the SDK builds, sends,
retries and parses requests exactly as it would against the real API. The transport serves a cassette's
exchanges in order, records every request it receives, and notes the first request that does not match the
recording (a *divergence*) instead of raising inside the SDK, where the error would be rewrapped beyond recognition.

Each exchange can be served in either mode: a streamed request gets SSE events (recorded ones, or events derived
from a recorded JSON body), a plain request gets the response object (a recorded body, or the response carried by
the recorded stream's terminal event). Stream-only faults are therefore skipped for plain requests.

:class:`RespxTransport` is a separate adapter for tests that prefer respx routes: respx patches ``httpx`` only and
never sees ``httpx2`` traffic, so the adapter converts each request and hands it to a respx router.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, cast

import httpx
import httpx2
import openai

from conformance.cassettes import Cassette, Exchange, JSONObject

if TYPE_CHECKING:
    import respx

MatchMode = Literal["body", "endpoint", "none"]
# Fields whose value depends on how the run was invoked rather than on what the runner decided to send, so a
# cassette recorded in one mode can be replayed in another.
MODE_FIELDS: Final = frozenset({"stream"})
DIVERGENCE_STATUS: Final = 400


@dataclass(frozen=True)
class SentRequest:
    """One HTTP request the client sent, as the transport saw it."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: JSONObject | None

    @property
    def endpoint(self) -> str:
        return self.path.rstrip("/").rsplit("/", 1)[-1]

    @property
    def streamed(self) -> bool:
        return bool(self.body and self.body.get("stream") is True)


@dataclass(frozen=True)
class Divergence:
    """The first request that did not match the cassette; ``expected`` is None when the cassette ran out."""

    index: int
    reason: str
    expected: JSONObject | None
    actual: JSONObject | None


DRIVER_OUTPUT: Final = "<driver output>"
IMAGE: Final = "<image>"


def _mask_images(value: object) -> object:
    if isinstance(value, dict):
        return {key: _mask_images(item) for key, item in cast(dict[str, object], value).items()}
    if isinstance(value, list):
        return [_mask_images(item) for item in cast(list[object], value)]
    if isinstance(value, str) and value.startswith("data:image/"):
        return IMAGE
    return value


def _mask_driver_outputs(items: list[object]) -> list[object]:
    """Replace outputs that a browser or computer driver produced, which a probe driver cannot reproduce."""
    driver_calls = {
        item.get("call_id")
        for item in items
        if isinstance(item, dict)
        and (item.get("type") == "computer_call" or str(item.get("name", "")).startswith("browser_"))
    }
    return [
        {**item, "output": DRIVER_OUTPUT}
        if isinstance(item, dict)
        and str(item.get("type", "")).endswith("call_output")
        and item.get("call_id") in driver_calls
        else item
        for item in items
    ]


def _without_mode_fields(body: JSONObject) -> JSONObject:
    return {key: value for key, value in body.items() if key not in MODE_FIELDS}


def comparable_body(body: JSONObject | None, *, mask_driver_outputs: bool = False) -> JSONObject | None:
    """A request body as replay compares it: without mode fields, with inline images reduced to a marker
    (recordings may redact them), and optionally with driver-produced outputs masked."""
    if body is None:
        return None
    result = cast(JSONObject, _mask_images(_without_mode_fields(body)))
    if mask_driver_outputs and isinstance(result.get("input"), list):
        result["input"] = _mask_driver_outputs(cast(list[object], result["input"]))
    return result


def _sse(events: list[JSONObject]) -> bytes:
    return b"".join(
        b"event: " + str(event["type"]).encode() + b"\ndata: " + _json_bytes(event) + b"\n\n" for event in events
    )


def _json_bytes(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def derived_events(response: JSONObject) -> list[JSONObject]:
    """SSE events for a recorded non-streamed response: created, each output item done, then the terminal event."""
    status = response.get("status")
    terminal = {"completed": "response.completed", "incomplete": "response.incomplete"}.get(
        str(status), "response.failed"
    )
    created = {**response, "status": "in_progress", "output": []}
    events: list[JSONObject] = [{"type": "response.created", "sequence_number": 0, "response": created}]
    for index, item in enumerate(cast(list[object], response.get("output") or [])):
        events.append(
            {
                "type": "response.output_item.done",
                "sequence_number": len(events),
                "output_index": index,
                "item": item,
            }
        )
    events.append({"type": terminal, "sequence_number": len(events), "response": response})
    return events


@dataclass(frozen=True)
class _Served:
    """A prepared answer: status, headers, the full body and, for a cut stream, whether to break the connection."""

    status: int
    content_type: str
    body: bytes
    broken: bool = False


def _prepare(exchange: Exchange, streamed: bool) -> _Served:
    for fault in exchange.faults:
        if fault.kind == "http_status":
            message = str(fault.fields.get("message", "injected HTTP failure"))
            error = {"error": {"message": message, "type": "server_error", "code": None, "param": None}}
            return _Served(cast(int, fault.fields["status"]), "application/json", _json_bytes(error))
    response = exchange.response
    if response.status >= 400 or not streamed:
        final = response.final_response()
        return _Served(response.status, "application/json", _json_bytes(final if final is not None else {}))
    events = list(response.events) if response.events is not None else derived_events(response.body or {})
    broken = False
    partial = b""
    for fault in exchange.faults:
        if fault.kind == "output_index":
            events = [
                {**event, "output_index": fault.fields["output_index"]}
                if event.get("sequence_number") == fault.fields["sequence"]
                else event
                for event in events
            ]
        elif fault.kind == "drop_event":
            events = [event for event in events if event.get("sequence_number") != fault.fields["sequence"]]
        elif fault.kind == "completed_output":
            events = [
                {
                    **event,
                    "response": {**cast(JSONObject, event["response"]), "output": fault.fields["output"]},
                }
                if event.get("type") == "response.completed"
                else event
                for event in events
            ]
        elif fault.kind == "cut_stream":
            after = cast(int, fault.fields["after_sequence"])
            rest = [event for event in events if cast(int, event["sequence_number"]) > after]
            events = [event for event in events if cast(int, event["sequence_number"]) <= after]
            broken = bool(fault.fields.get("error", False))
            if fault.fields.get("mid_event") and rest:
                # The body ends inside the next event, as a connection lost mid-write leaves it.
                cut = _sse(rest[:1])
                partial = cut[: len(cut) // 2]
    return _Served(response.status, "text/event-stream", _sse(events) + partial, broken)


class _BrokenStream(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A body that delivers its bytes and then fails as a dropped connection would."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def __iter__(self) -> Iterator[bytes]:
        yield self._body
        raise httpx2.RemoteProtocolError("driverkit: injected connection drop mid-stream")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self._body
        raise httpx2.RemoteProtocolError("driverkit: injected connection drop mid-stream")


class CassetteTransport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """Serve ``cassette`` exchange by exchange and record what was sent.

    ``match`` chooses how strictly each request must agree with its recorded counterpart: ``"body"`` compares the
    endpoint and (when recorded) the JSON body as :func:`comparable_body` reduces it, ``"endpoint"`` only the
    endpoint, ``"none"`` nothing. ``mask_driver_outputs`` ignores outputs produced by browser/computer drivers.
    A mismatch, or a request beyond the last exchange, is kept in :attr:`divergence` and answered with a
    non-retryable 400 so the client stops promptly.
    """

    def __init__(self, cassette: Cassette, *, match: MatchMode = "body", mask_driver_outputs: bool = False) -> None:
        self.cassette = cassette
        self.match = match
        self.mask_driver_outputs = mask_driver_outputs
        self.sent: list[SentRequest] = []
        self.divergence: Divergence | None = None
        # Bodies are rendered once per exchange and mode so serving costs no more than a prebuilt mock.
        self._prepared: dict[tuple[int, bool], _Served] = {}

    @property
    def served(self) -> int:
        return len(self.sent)

    @property
    def exhausted(self) -> bool:
        return self.served >= len(self.cassette.exchanges)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        return self._respond(request, request.read())

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        return self._respond(request, await request.aread())

    def _respond(self, request: httpx2.Request, raw: bytes) -> httpx2.Response:
        body = _decode_body(raw)
        sent = SentRequest(request.method, request.url.path, dict(request.headers), body)
        index = len(self.sent)
        self.sent.append(sent)
        if self.divergence is not None:
            return self._refuse(request, "an earlier request already diverged")
        problem = self._mismatch(index, sent)
        if problem is not None:
            expected = self.cassette.exchanges[index].request.body if index < len(self.cassette.exchanges) else None
            self.divergence = Divergence(index, problem, expected, body)
            return self._refuse(request, problem)
        key = (index, sent.streamed)
        served = self._prepared.get(key)
        if served is None:
            served = self._prepared[key] = _prepare(self.cassette.exchanges[index], sent.streamed)
        headers = {"content-type": served.content_type, "x-request-id": f"req_driverkit_{index}"}
        if served.broken:
            return httpx2.Response(served.status, headers=headers, stream=_BrokenStream(served.body), request=request)
        return httpx2.Response(served.status, headers=headers, content=served.body, request=request)

    def _mismatch(self, index: int, sent: SentRequest) -> str | None:
        if index >= len(self.cassette.exchanges):
            return f"request {index} was sent but the cassette has only {len(self.cassette.exchanges)} exchange(s)"
        if self.match == "none":
            return None
        recorded = self.cassette.exchanges[index].request
        recorded_endpoint = recorded.path.rstrip("/").rsplit("/", 1)[-1]
        if sent.method != recorded.method or sent.endpoint != recorded_endpoint:
            return (
                f"request {index} went to {sent.method} .../{sent.endpoint}, "
                f"recorded {recorded.method} .../{recorded_endpoint}"
            )
        if self.match == "body" and recorded.body is not None and not self._same_body(recorded.body, sent.body):
            return f"request {index} body differs from the recording"
        return None

    def _same_body(self, recorded: JSONObject, sent: JSONObject | None) -> bool:
        if sent is None:
            return False
        # Fast path: an identical body (mode fields aside) is compared by the C dict equality alone; the
        # recursive masking below walks the whole growing history and would dominate a long replay.
        if _without_mode_fields(recorded) == _without_mode_fields(sent):
            return True
        masked = self.mask_driver_outputs
        expected = comparable_body(recorded, mask_driver_outputs=masked)
        return expected == comparable_body(sent, mask_driver_outputs=masked)

    def _refuse(self, request: httpx2.Request, problem: str) -> httpx2.Response:
        error = {"error": {"message": f"driverkit replay: {problem}", "type": "invalid_request_error"}}
        return httpx2.Response(
            DIVERGENCE_STATUS,
            headers={"content-type": "application/json", "x-should-retry": "false"},
            content=_json_bytes(error),
            request=request,
        )


def _decode_body(raw: bytes) -> JSONObject | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {"__undecodable__": raw.decode("utf-8", "replace")}
    return cast(JSONObject, value) if isinstance(value, dict) else {"__json__": value}


FAKE_BASE_URL: Final = "http://driverkit.invalid/v1"
FAKE_API_KEY: Final = "sk-driverkit-fake"


def fake_client(transport: httpx2.BaseTransport, *, max_retries: int = 0) -> openai.OpenAI:
    """A real sync client whose traffic goes to ``transport`` (no network, no real key)."""
    return openai.OpenAI(http_client=httpx2.Client(transport=transport), **_fake_account(max_retries))


def fake_async_client(transport: httpx2.AsyncBaseTransport, *, max_retries: int = 0) -> openai.AsyncOpenAI:
    """A real async client whose traffic goes to ``transport``."""
    return openai.AsyncOpenAI(http_client=httpx2.AsyncClient(transport=transport), **_fake_account(max_retries))


def _fake_account(max_retries: int) -> dict[str, Any]:
    return {"api_key": FAKE_API_KEY, "base_url": FAKE_BASE_URL, "max_retries": max_retries}


# ------------------------------------------------------------------------------------------ respx adapter


def _legacy_request(request: httpx2.Request, body: bytes) -> httpx.Request:
    return httpx.Request(request.method, str(request.url), headers=list(request.headers.multi_items()), content=body)


def _modern_response(request: httpx2.Request, legacy: httpx.Response, body: bytes) -> httpx2.Response:
    headers = [(name, value) for name, value in legacy.headers.multi_items() if name.lower() != "content-encoding"]
    return httpx2.Response(legacy.status_code, headers=headers, content=body, request=request)


class RespxTransport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """Route ``httpx2`` requests through a respx router, so routes, side effects and call records apply.

    The router's own call list (``router.calls``, ``route.calls``) records the converted ``httpx`` requests.
    """

    def __init__(self, router: respx.Router) -> None:
        self.router = router

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        legacy = self.router.handler(_legacy_request(request, request.read()))
        return _modern_response(request, legacy, legacy.read())

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        legacy = await self.router.async_handler(_legacy_request(request, await request.aread()))
        return _modern_response(request, legacy, await legacy.aread())


__all__ = [
    "FAKE_API_KEY",
    "FAKE_BASE_URL",
    "CassetteTransport",
    "Divergence",
    "RespxTransport",
    "SentRequest",
    "comparable_body",
    "derived_events",
    "fake_async_client",
    "fake_client",
]
