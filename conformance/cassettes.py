"""Cassettes: recorded Responses (and Decisions) traffic that a fake transport can serve back to a real client.

The on-disk format is ``driverkit.responses`` version 1, documented in ``fixtures/streams/README.md``. A cassette
is a JSONL file: the first line is a header, every further line is one exchange (the request the runner sent and
the response it got). A streamed response is kept as its exact server-sent events, in order, each with its
``sequence_number``; faults to inject at serve time sit beside the response so the recorded events stay intact.

Loading validates everything up front and reports the first problem as ``file:line: problem`` so a hand-edited
cassette never fails later with an obscure transport error.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal, cast

from conformance import atomic, resources

FORMAT_NAME: Final = "driverkit.responses"
FORMAT_VERSION: Final = 1

JSONObject = dict[str, object]

# Terminal stream events: the response object they carry is what a non-streamed request would have returned.
TERMINAL_EVENTS: Final = frozenset({"response.completed", "response.failed", "response.incomplete"})

FaultKind = Literal["http_status", "cut_stream", "output_index", "drop_event", "completed_output"]
FAULT_FIELDS: Final[dict[str, frozenset[str]]] = {
    # Serve this HTTP error instead of the recorded response (both modes).
    "http_status": frozenset({"status", "message"}),
    # Streamed mode: stop the body after the event with this sequence number; ``error`` makes it a broken
    # connection instead of a clean end of stream; ``mid_event`` also sends the first half of the next event.
    "cut_stream": frozenset({"after_sequence", "error", "mid_event"}),
    # Streamed mode: rewrite the output_index of one event (duplicate, gap or out-of-order indices).
    "output_index": frozenset({"sequence", "output_index"}),
    # Streamed mode: leave one event out (a missing output item).
    "drop_event": frozenset({"sequence"}),
    # Streamed mode: the terminal response carries this output instead of what was streamed.
    "completed_output": frozenset({"output"}),
}
REQUIRED_FAULT_FIELDS: Final[dict[str, frozenset[str]]] = {
    "http_status": frozenset({"status"}),
    "cut_stream": frozenset({"after_sequence"}),
    "output_index": frozenset({"sequence", "output_index"}),
    "drop_event": frozenset({"sequence"}),
    "completed_output": frozenset({"output"}),
}
STREAM_ONLY_FAULTS: Final = frozenset({"cut_stream", "output_index", "drop_event", "completed_output"})


class CassetteError(ValueError):
    """A cassette file is malformed; the message names ``file:line: problem``."""

    def __init__(self, source: str, line: int, problem: str) -> None:
        super().__init__(f"{source}:{line}: {problem}")
        self.source = source
        self.line = line
        self.problem = problem


@dataclass(frozen=True)
class Fault:
    """One fault injected when the exchange is served. ``fields`` holds the kind-specific values."""

    kind: FaultKind
    fields: Mapping[str, object]

    def to_json(self) -> JSONObject:
        return {"kind": self.kind, **self.fields}


@dataclass(frozen=True)
class RecordedRequest:
    """What the client sent. ``body`` is None when the cassette does not pin the request body."""

    method: str
    path: str
    body: JSONObject | None = None

    def to_json(self) -> JSONObject:
        data: JSONObject = {"method": self.method, "path": self.path}
        if self.body is not None:
            data["body"] = self.body
        return data


@dataclass(frozen=True)
class RecordedResponse:
    """What the server answered: an HTTP status plus either a JSON ``body`` or a list of SSE ``events``."""

    status: int
    body: JSONObject | None = None
    events: tuple[JSONObject, ...] | None = None

    @property
    def streamed(self) -> bool:
        return self.events is not None

    def final_response(self) -> JSONObject | None:
        """The response object a non-streamed request gets: the body, or the terminal event's response."""
        if self.body is not None:
            return self.body
        for event in reversed(self.events or ()):
            if event.get("type") in TERMINAL_EVENTS:
                return cast(JSONObject, event["response"])
        return None

    def to_json(self) -> JSONObject:
        data: JSONObject = {"status": self.status}
        if self.body is not None:
            data["body"] = self.body
        if self.events is not None:
            data["events"] = list(self.events)
        return data


@dataclass(frozen=True)
class Exchange:
    request: RecordedRequest
    response: RecordedResponse
    faults: tuple[Fault, ...] = ()

    def to_json(self, index: int) -> JSONObject:
        data: JSONObject = {
            "exchange": index,
            "request": self.request.to_json(),
            "response": self.response.to_json(),
        }
        if self.faults:
            data["faults"] = [fault.to_json() for fault in self.faults]
        return data


@dataclass(frozen=True)
class Cassette:
    """A whole scenario: a name, free-form metadata and the exchanges in the order they were served."""

    scenario: str
    exchanges: tuple[Exchange, ...]
    description: str = ""
    meta: Mapping[str, object] = field(default_factory=dict)

    def header(self) -> JSONObject:
        data: JSONObject = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "scenario": self.scenario}
        if self.description:
            data["description"] = self.description
        if self.meta:
            data["meta"] = dict(self.meta)
        return data

    def dumps(self) -> str:
        lines = [self.header(), *(exchange.to_json(i) for i, exchange in enumerate(self.exchanges))]
        # Compact, key-stable lines keep diffs of committed cassettes readable and files small.
        return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)


# ---------------------------------------------------------------------------------------------- loading


class _LineChecker:
    """Validation helpers that raise CassetteError pointing at one line."""

    def __init__(self, source: str, line: int) -> None:
        self.source = source
        self.line = line

    def fail(self, problem: str) -> CassetteError:
        return CassetteError(self.source, self.line, problem)

    def obj(self, value: object, what: str) -> JSONObject:
        if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
            raise self.fail(f"{what} must be a JSON object")
        return cast(JSONObject, value)

    def keys(self, data: Mapping[str, object], what: str, allowed: Iterable[str], required: Iterable[str]) -> None:
        unknown = sorted(set(data) - set(allowed))
        if unknown:
            raise self.fail(f"{what} has unknown field(s) {', '.join(unknown)}")
        missing = sorted(set(required) - set(data))
        if missing:
            raise self.fail(f"{what} is missing field(s) {', '.join(missing)}")

    def integer(self, value: object, what: str) -> int:
        if type(value) is not int:
            raise self.fail(f"{what} must be an integer")
        return value


def _parse_header(check: _LineChecker, data: JSONObject) -> tuple[str, str, JSONObject]:
    check.keys(data, "header", {"format", "version", "scenario", "description", "meta"}, {"format", "version"})
    if data["format"] != FORMAT_NAME:
        raise check.fail(f"format must be {FORMAT_NAME!r}, got {data['format']!r}")
    if data["version"] != FORMAT_VERSION:
        raise check.fail(f"unsupported cassette version {data['version']!r} (this kit reads version {FORMAT_VERSION})")
    scenario = data.get("scenario", "")
    description = data.get("description", "")
    if not isinstance(scenario, str) or not isinstance(description, str):
        raise check.fail("scenario and description must be strings")
    return scenario, description, check.obj(data.get("meta", {}), "meta")


def _parse_request(check: _LineChecker, value: object) -> RecordedRequest:
    data = check.obj(value, "request")
    check.keys(data, "request", {"method", "path", "body"}, {"method", "path"})
    method, path = data["method"], data["path"]
    if not isinstance(method, str) or not isinstance(path, str) or not path.startswith("/"):
        raise check.fail("request method must be a string and path must start with '/'")
    body = data.get("body")
    return RecordedRequest(method.upper(), path, None if body is None else check.obj(body, "request body"))


def _parse_events(check: _LineChecker, value: object) -> tuple[JSONObject, ...]:
    if not isinstance(value, list) or not value:
        raise check.fail("response events must be a nonempty list")
    events: list[JSONObject] = []
    previous = -1
    for position, raw in enumerate(cast(list[object], value)):
        event = check.obj(raw, f"event {position}")
        if not isinstance(event.get("type"), str):
            raise check.fail(f"event {position} has no string type")
        sequence = check.integer(event.get("sequence_number"), f"event {position} sequence_number")
        if sequence <= previous:
            raise check.fail(f"event {position} sequence_number {sequence} does not increase (after {previous})")
        previous = sequence
        if event["type"] in TERMINAL_EVENTS and not isinstance(event.get("response"), dict):
            raise check.fail(f"event {position} ({event['type']}) carries no response object")
        events.append(event)
    if events[0]["type"] != "response.created":
        raise check.fail("a streamed response must start with response.created")
    return tuple(events)


def _parse_response(check: _LineChecker, value: object) -> RecordedResponse:
    data = check.obj(value, "response")
    check.keys(data, "response", {"status", "body", "events"}, {"status"})
    status = check.integer(data["status"], "response status")
    if not 100 <= status <= 599:
        raise check.fail(f"response status {status} is not an HTTP status")
    if ("body" in data) == ("events" in data):
        raise check.fail("response needs exactly one of body or events")
    if "events" in data:
        return RecordedResponse(status, events=_parse_events(check, data["events"]))
    return RecordedResponse(status, body=check.obj(data["body"], "response body"))


def _parse_fault(check: _LineChecker, value: object, response: RecordedResponse) -> Fault:
    data = check.obj(value, "fault")
    kind = data.get("kind")
    if kind not in FAULT_FIELDS:
        raise check.fail(f"unknown fault kind {kind!r} (known: {', '.join(sorted(FAULT_FIELDS))})")
    fields = {key: item for key, item in data.items() if key != "kind"}
    check.keys(fields, f"{kind} fault", FAULT_FIELDS[str(kind)], REQUIRED_FAULT_FIELDS[str(kind)])
    if kind in STREAM_ONLY_FAULTS and not response.streamed:
        raise check.fail(f"{kind} fault needs a streamed response (events)")
    sequences = {cast(int, event["sequence_number"]) for event in response.events or ()}
    if kind == "http_status":
        status = check.integer(fields["status"], "http_status status")
        if not 400 <= status <= 599:
            raise check.fail("http_status fault needs a 4xx or 5xx status")
        if not isinstance(fields.get("message", ""), str):
            raise check.fail("http_status message must be a string")
    elif kind == "cut_stream":
        after = check.integer(fields["after_sequence"], "cut_stream after_sequence")
        if after not in sequences:
            raise check.fail(f"cut_stream names sequence {after}, which the stream does not contain")
        if not isinstance(fields.get("error", False), bool) or not isinstance(fields.get("mid_event", False), bool):
            raise check.fail("cut_stream error and mid_event must be true or false")
        if fields.get("mid_event") and after >= max(sequences):
            raise check.fail(f"cut_stream mid_event needs an event after sequence {after}")
    elif kind in ("output_index", "drop_event"):
        sequence = check.integer(fields["sequence"], f"{kind} sequence")
        if sequence not in sequences:
            raise check.fail(f"{kind} names sequence {sequence}, which the stream does not contain")
        if kind == "output_index":
            check.integer(fields["output_index"], "output_index output_index")
    elif not isinstance(fields["output"], list):
        raise check.fail("completed_output output must be a list")
    return Fault(cast(FaultKind, kind), fields)


def _parse_exchange(check: _LineChecker, data: JSONObject, expected_index: int) -> Exchange:
    check.keys(data, "exchange", {"exchange", "request", "response", "faults"}, {"exchange", "request", "response"})
    index = check.integer(data["exchange"], "exchange")
    if index != expected_index:
        raise check.fail(f"exchange number {index} is out of order (expected {expected_index})")
    request = _parse_request(check, data["request"])
    response = _parse_response(check, data["response"])
    raw_faults = data.get("faults", [])
    if not isinstance(raw_faults, list):
        raise check.fail("faults must be a list")
    faults = tuple(_parse_fault(check, fault, response) for fault in cast(list[object], raw_faults))
    return Exchange(request, response, faults)


def loads(text: str, source: str = "<cassette>") -> Cassette:
    """Parse and validate cassette text; ``source`` names the file in error messages."""
    header: tuple[str, str, JSONObject] | None = None
    exchanges: list[Exchange] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        check = _LineChecker(source, number)
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as error:
            raise check.fail(f"invalid JSON ({error.msg} at column {error.colno})") from None
        data = check.obj(raw, "line")
        if header is None:
            header = _parse_header(check, data)
        else:
            exchanges.append(_parse_exchange(check, data, len(exchanges)))
    if header is None:
        raise CassetteError(source, 1, "empty cassette: no header line")
    scenario, description, meta = header
    return Cassette(scenario, tuple(exchanges), description, meta)


def load(path: str | os.PathLike[str]) -> Cassette:
    """Read and validate a cassette file."""
    source = os.fspath(path)
    try:
        text = Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CassetteError(source, 0, f"cannot read cassette: {error}") from None
    return loads(text, source)


def bundled(name: str) -> Cassette:
    """The cassette the kit ships as ``fixtures/streams/<name>.jsonl`` (``examples/<name>`` for an example's)."""
    return load(resources.streams(f"{name}.jsonl"))


def save(cassette: Cassette, path: str | os.PathLike[str]) -> None:
    """Write a cassette atomically: readers see the old file or the whole new one, never a partial write."""
    target = Path(path)
    text = cassette.dumps()
    # Round-trip before writing so an invalid cassette is refused instead of being left on disk.
    loads(text, os.fspath(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_text(target, text)


__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "Cassette",
    "CassetteError",
    "Exchange",
    "Fault",
    "RecordedRequest",
    "RecordedResponse",
    "load",
    "loads",
    "save",
]
