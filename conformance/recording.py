"""Record a real run to a cassette, so a runner bug seen against the live API can be replayed offline.

    from conformance.recording import record_client

    with record_client("bug.jsonl", api_key=..., redact_images=True) as client:
        runner.run(client, params, stream=True, eager=True)

Every request the client sends and every response it gets (streamed responses as their exact SSE events, in
order) is kept and written atomically to the cassette when the block exits, also when the run raised.

What is never written: request and response headers (so Authorization, API keys, cookies, and
OpenAI-Organization / OpenAI-Project headers cannot leak), MCP ``authorization`` and ``headers`` values inside
request bodies, and any string that looks like an OpenAI secret key. With ``redact_images=True``, inline image
data (``data:image/...`` URLs and image generation results) is replaced by a one-pixel placeholder; replay
compares images by presence, not content, so a redacted cassette still replays.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import weakref
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Final, cast

import httpx2
import openai

from conformance import cassettes
from conformance.cassettes import Cassette, Exchange, Fault, JSONObject, RecordedRequest, RecordedResponse

PLACEHOLDER_PNG_BASE64: Final = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="
)
PLACEHOLDER_IMAGE_URL: Final = f"data:image/png;base64,{PLACEHOLDER_PNG_BASE64}"
REDACTED: Final = "[redacted by driverkit]"
# Secret-looking strings: OpenAI keys (sk-..., sk-proj-...) and bearer tokens pasted into bodies.
SECRET_PATTERN: Final = re.compile(r"(sk-[A-Za-z0-9_\-]{8,}|Bearer\s+[A-Za-z0-9._\-]{8,})")
DATA_IMAGE_PATTERN: Final = re.compile(r"^data:image/[a-zA-Z0-9.+-]+;base64,")
# Body fields that carry credentials for remote tools (MCP authorization, custom headers).
SECRET_FIELDS: Final = frozenset({"authorization", "headers", "api_key"})


def scrub(value: object, *, redact_images: bool) -> object:
    """A copy of ``value`` with credentials (and optionally image data) replaced."""
    if isinstance(value, dict):
        result: dict[str, object] = {}
        for key, item in cast(dict[str, object], value).items():
            if key in SECRET_FIELDS and item is not None:
                result[key] = REDACTED
            elif redact_images and key == "result" and value.get("type") == "image_generation_call":
                result[key] = PLACEHOLDER_PNG_BASE64
            else:
                result[key] = scrub(item, redact_images=redact_images)
        return result
    if isinstance(value, list):
        return [scrub(item, redact_images=redact_images) for item in cast(list[object], value)]
    if isinstance(value, str):
        if redact_images and DATA_IMAGE_PATTERN.match(value):
            return PLACEHOLDER_IMAGE_URL
        return SECRET_PATTERN.sub(REDACTED, value)
    return value


def parse_sse(raw: bytes) -> list[JSONObject]:
    """The JSON ``data:`` payloads of an SSE body, in order (``[DONE]`` and comments are dropped)."""
    events: list[JSONObject] = []
    for block in raw.decode("utf-8", "replace").replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].lstrip(" ") for line in block.split("\n") if line.startswith("data:"))
        if not data or data == "[DONE]":
            continue
        try:
            parsed = json.loads(data)
        except json.JSONDecodeError:
            continue
        if isinstance(parsed, dict):
            events.append(cast(JSONObject, parsed))
    return events


@dataclass
class Recorder:
    """Collects exchanges as they complete; :meth:`cassette` turns them into a :class:`Cassette`."""

    scenario: str
    redact_images: bool = False
    exchanges: list[Exchange] = field(default_factory=list)
    # Run settings the traffic cannot show (budget limits, a ledger, step and concurrency limits) and the
    # budget policy's decisions in call order; see :func:`recorded_run_options`.
    run_settings: JSONObject = field(default_factory=dict)
    budget_decisions: list[JSONObject] = field(default_factory=list)

    def add(
        self, request: httpx2.Request, body: bytes, status: int, content_type: str, raw: bytes, broken: bool
    ) -> None:
        request_body = _json_object(body)
        recorded_request = RecordedRequest(
            request.method,
            request.url.path,
            None if request_body is None else cast(JSONObject, scrub(request_body, redact_images=self.redact_images)),
        )
        faults: tuple[Fault, ...] = ()
        if content_type.startswith("text/event-stream"):
            events = [cast(JSONObject, scrub(event, redact_images=self.redact_images)) for event in parse_sse(raw)]
            events = _sequenced(events)
            if not events:
                response = RecordedResponse(status if status >= 400 else 502, body={"error": "empty stream"})
            else:
                response = RecordedResponse(status, events=tuple(events))
                if broken:
                    faults = (Fault("cut_stream", {"after_sequence": events[-1]["sequence_number"], "error": True}),)
        else:
            parsed = _json_object(raw)
            body_json = {"unparsed": raw.decode("utf-8", "replace")} if parsed is None else parsed
            response = RecordedResponse(
                status, body=cast(JSONObject, scrub(body_json, redact_images=self.redact_images))
            )
        self.exchanges.append(Exchange(recorded_request, response, faults))

    def cassette(self) -> Cassette:
        meta: JSONObject = {"recorded": True}
        if self.run_settings:
            run = dict(self.run_settings)
            if "context_budget" in run:
                run["context_budget"] = {
                    **cast(JSONObject, run["context_budget"]),
                    "decisions": list(self.budget_decisions),
                }
            meta["run"] = run
        return Cassette(self.scenario, tuple(self.exchanges), "Recorded with driverkit.", meta)

    def write(self, path: str | os.PathLike[str]) -> None:
        cassettes.save(self.cassette(), path)


def _sequenced(events: list[JSONObject]) -> list[JSONObject]:
    """Events as received; a stream whose events lack sequence numbers gets them in arrival order."""
    if all(type(event.get("sequence_number")) is int for event in events):
        return events
    return [{**event, "sequence_number": number} for number, event in enumerate(events)]


def _json_object(raw: bytes) -> JSONObject | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return cast(JSONObject, value) if isinstance(value, dict) else None


def _plain_request(request: httpx2.Request, body: bytes) -> httpx2.Request:
    # Ask for an uncompressed body: the recorder reads the bytes as they pass and must not see gzip.
    headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() != "accept-encoding"]
    headers.append(("accept-encoding", "identity"))
    return httpx2.Request(request.method, request.url, headers=headers, content=body, extensions=request.extensions)


class _TeeStream(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """Pass a response body through unchanged while keeping a copy; report it once the body ends or breaks."""

    def __init__(self, inner: Any, done: Callable[[bytes, bool], None]) -> None:
        self._inner = inner
        self._done = done
        self._chunks: list[bytes] = []
        self._reported = False

    def _finish(self, broken: bool) -> None:
        if not self._reported:
            self._reported = True
            self._done(b"".join(self._chunks), broken)

    def __iter__(self) -> Iterator[bytes]:
        try:
            for chunk in self._inner:
                self._chunks.append(chunk)
                yield chunk
        except Exception:
            self._finish(True)
            raise
        self._finish(False)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._inner:
                self._chunks.append(chunk)
                yield chunk
        except Exception:
            self._finish(True)
            raise
        self._finish(False)

    def close(self) -> None:
        # A consumer that stops early (the runner closing a stream after an error) still leaves a record.
        self._finish(False)
        self._inner.close()

    async def aclose(self) -> None:
        self._finish(False)
        await self._inner.aclose()


class RecordingTransport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """Forward every request to ``inner`` (a real network transport by default) and record the exchange."""

    def __init__(self, recorder: Recorder, inner: Any = None) -> None:
        self.recorder = recorder
        self.inner = inner

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        if self.inner is None:
            self.inner = httpx2.HTTPTransport()
        body = request.read()
        response = self.inner.handle_request(_plain_request(request, body))
        return self._tee(request, body, response)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if self.inner is None:
            self.inner = httpx2.AsyncHTTPTransport()
        body = await request.aread()
        response = await self.inner.handle_async_request(_plain_request(request, body))
        return self._tee(request, body, response)

    def _tee(self, request: httpx2.Request, body: bytes, response: httpx2.Response) -> httpx2.Response:
        content_type = response.headers.get("content-type", "")

        def done(raw: bytes, broken: bool) -> None:
            self.recorder.add(request, body, response.status_code, content_type, raw, broken)

        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            stream=_TeeStream(response.stream, done),
            extensions=response.extensions,
            request=request,
        )

    def close(self) -> None:
        if isinstance(self.inner, httpx2.BaseTransport):
            self.inner.close()

    async def aclose(self) -> None:
        if isinstance(self.inner, httpx2.AsyncBaseTransport):
            await self.inner.aclose()


# The clients made by record_client / record_async_client, so recorded_run_options finds their recorder.
_RECORDERS: Final[weakref.WeakKeyDictionary[object, Recorder]] = weakref.WeakKeyDictionary()
BUDGET_LIMITS: Final = ("max_input_bytes", "max_input_images", "keep_recent_screenshots")


def recorded_run_options(
    client: openai.OpenAI | openai.AsyncOpenAI,
    *,
    context_budget: Mapping[str, Any] | None = None,
    ledger: Any = None,
    max_steps: int | None = None,
    max_concurrent_calls: int | None = None,
) -> dict[str, Any]:
    """The run options to pass to ``runner.run``, noted in the recording so a replay can rebuild them.

        with record_client("bug.jsonl") as client:
            options = recorded_run_options(client, context_budget=budget, ledger=ledger, max_steps=8)
            runner.run(client, params, stream=True, **options)

    The traffic alone cannot show these settings. The cassette keeps the budget's limits and every decision its
    ``compact`` policy returned (the policy is wrapped, its answers unchanged), whether a ledger was used (not
    its checkpoints: those are the application's), ``max_steps`` and ``max_concurrent_calls``. Options left as
    None are not passed on.
    """
    recorder = _RECORDERS.get(client)
    if recorder is None:
        raise TypeError("recorded_run_options needs a client made by record_client or record_async_client")
    settings: JSONObject = {}
    options: dict[str, Any] = {}
    if context_budget is not None:
        unknown = sorted(set(context_budget) - {*BUDGET_LIMITS, "compact"})
        if unknown:
            raise ValueError(f"context_budget has keys a recording cannot keep: {', '.join(unknown)}")
        limits = {key: context_budget[key] for key in BUDGET_LIMITS if context_budget.get(key) is not None}
        settings["context_budget"] = dict(limits)
        budget: dict[str, Any] = dict(context_budget)
        if context_budget.get("compact") is not None:
            budget["compact"] = _recording_policy(context_budget["compact"], recorder)
        options["context_budget"] = budget
    if ledger is not None:
        settings["ledger"] = True
        options["ledger"] = ledger
    for name, value in (("max_steps", max_steps), ("max_concurrent_calls", max_concurrent_calls)):
        if value is not None:
            settings[name] = value
            options[name] = value
    recorder.run_settings = settings
    return options


def _recording_policy(compact: Callable[[Any], Any], recorder: Recorder) -> Callable[[Any], Any]:
    """``compact`` with each decision it returns also kept (scrubbed) for the cassette."""

    def keep(decision: Any) -> Any:
        if isinstance(decision, Mapping):
            recorder.budget_decisions.append(cast(JSONObject, scrub(dict(decision), redact_images=False)))
        return decision

    if inspect.iscoroutinefunction(compact):

        async def async_policy(snapshot: Any) -> Any:
            return keep(await compact(snapshot))

        return async_policy

    def policy(snapshot: Any) -> Any:
        decision = compact(snapshot)
        if inspect.isawaitable(decision):
            # The async runner also accepts a plain callable returning an awaitable.
            async def settle() -> Any:
                return keep(await decision)

            return settle()
        return keep(decision)

    return policy


@contextmanager
def record_client(
    path: str | os.PathLike[str],
    *,
    scenario: str = "recorded",
    redact_images: bool = False,
    transport: httpx2.BaseTransport | None = None,
    **client_options: Any,
) -> Iterator[openai.OpenAI]:
    """A real ``OpenAI`` client whose exchanges are written to ``path`` when the block exits.

    ``client_options`` go to ``openai.OpenAI`` (api_key, base_url, organization, ...). ``transport`` replaces the
    network transport, e.g. for a proxy or a test double.
    """
    recorder = Recorder(scenario, redact_images)
    http_client = httpx2.Client(transport=RecordingTransport(recorder, transport))
    client = openai.OpenAI(http_client=http_client, **client_options)
    _RECORDERS[client] = recorder
    try:
        yield client
    finally:
        client.close()
        recorder.write(path)


@asynccontextmanager
async def record_async_client(
    path: str | os.PathLike[str],
    *,
    scenario: str = "recorded",
    redact_images: bool = False,
    transport: httpx2.AsyncBaseTransport | None = None,
    **client_options: Any,
) -> AsyncIterator[openai.AsyncOpenAI]:
    """The async twin of :func:`record_client`."""
    recorder = Recorder(scenario, redact_images)
    http_client = httpx2.AsyncClient(transport=RecordingTransport(recorder, transport))
    client = openai.AsyncOpenAI(http_client=http_client, **client_options)
    _RECORDERS[client] = recorder
    try:
        yield client
    finally:
        await client.close()
        recorder.write(path)


__all__ = [
    "PLACEHOLDER_IMAGE_URL",
    "REDACTED",
    "Recorder",
    "RecordingTransport",
    "parse_sse",
    "record_async_client",
    "record_client",
    "recorded_run_options",
    "scrub",
]
