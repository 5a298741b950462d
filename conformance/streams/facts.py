"""What a cassette serves, read back from the cassette alone: the run's tools, and each exchange as a plain or a
streamed request receives it (faults applied).

The properties judge a run against these facts, never against the plan a generator drew, so a cassette shrunk by
removing events, or one recorded in the field, is judged exactly as the generated one it came from.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Final, Literal, cast

from conformance.cassettes import TERMINAL_EVENTS, Cassette, Exchange, JSONObject
from conformance.replay import plan_from
from conformance.streams.events import ADDED, DONE
from conformance.streams.strategies import max_retries_of

CallKind = Literal["function", "browser", "computer"]
# Statuses the client retries on its own (the SDK's documented retry rule for transient failures).
RETRYABLE: Final = frozenset({408, 409, 429}) | frozenset(range(500, 600))
# Faults a plain request never sees: it gets the whole response, not the stream they change.
STREAM_ONLY_FAULTS: Final = frozenset({"cut_stream", "drop_event", "output_index", "completed_output"})
SERVER_ITEM_TOOLS: Final[dict[str, frozenset[str]]] = {
    "web_search_call": frozenset({"web_search", "web_search_preview"}),
    "file_search_call": frozenset({"file_search"}),
    "code_interpreter_call": frozenset({"code_interpreter"}),
    "image_generation_call": frozenset({"image_generation"}),
    "mcp_call": frozenset({"mcp"}),
    "mcp_list_tools": frozenset({"mcp"}),
}


@dataclass(frozen=True)
class Call:
    """One local call the model issued. ``runnable``: completed, registered and (for a function) with arguments
    that decode to a JSON object, the only calls the documents let reach an executor or driver."""

    call_id: str
    kind: CallKind
    name: str
    status: str
    registered: bool
    well_formed: bool
    position: int = 0

    @property
    def runnable(self) -> bool:
        return self.status == "completed" and self.registered and self.well_formed

    @property
    def problem(self) -> str | None:
        """Why the call may not run, as the clause that says so, or None."""
        if self.status != "completed":
            return "RN-STREAM-008"
        if not self.well_formed:
            return "RN-STREAM-009"
        if not self.registered:
            return "RN-LOOP-001"
        return None


@dataclass(frozen=True)
class Served:
    """One exchange as one delivery receives it.

    ``status`` is the response's status, None when a streamed request never got the terminal event (the stream was
    cut). ``calls`` are the local calls in output order. ``arrived`` are the local calls whose completed
    ``output_item.done`` event arrived, in stream order, before the stream ended: the only ones an eager run may
    start before it fails. ``irregular`` marks events sent twice or re-indexed, whose handling the documents
    leave open (driverkit clauses --open-questions, OQ-003).
    """

    index: int
    http_status: int | None
    response_id: str | None = None
    status: str | None = None
    calls: tuple[Call, ...] = ()
    arrived: tuple[str, ...] = ()
    server_problem_at: int | None = None
    final_message: bool = False
    answer_only: bool = False
    irregular: bool = False
    repeated_done: bool = False
    repeated_added: bool = False
    cut: bool = False
    cut_inside_event: bool = False

    @property
    def call_ids(self) -> tuple[str, ...]:
        return tuple(call.call_id for call in self.calls)

    @property
    def runnable(self) -> tuple[str, ...]:
        return tuple(call.call_id for call in self.calls if call.runnable)

    @property
    def server_problem(self) -> bool:
        return self.server_problem_at is not None

    def first_problem(self) -> tuple[int, str] | None:
        """The output position of the first item that stops the run (a call that may not run, or a failed or
        undeclared server result) and the clause that says so, if any."""
        found = [(call.position, problem) for call in self.calls if (problem := call.problem) is not None]
        if self.server_problem_at is not None:
            found.append((self.server_problem_at, "RN-SERVER-002"))
        return min(found) if found else None

    def head_start(self, eager: bool) -> tuple[str, ...]:
        """The calls an eager run may have started before this response failed: runnable calls whose completed
        done event arrived, before the first item that stops the run."""
        if not eager:
            return ()
        problem = self.first_problem()
        limit = problem[0] if problem is not None else len(self.calls) + 1_000_000
        positions = {call.call_id: call.position for call in self.calls}
        return tuple(call_id for call_id in self.arrived if positions.get(call_id, limit) < limit)


def _well_formed(item: JSONObject) -> bool:
    if item.get("type") != "function_call":
        return True
    try:
        decoded = json.loads(str(item.get("arguments")))
    except (json.JSONDecodeError, ValueError):
        return False
    return isinstance(decoded, dict)


@dataclass(frozen=True)
class Facts:
    """The run a cassette describes (its stored first request) and what every exchange serves."""

    cassette: Cassette
    functions: frozenset[str]
    browser_members: frozenset[str]
    computer: bool
    server_tools: frozenset[str]
    max_retries: int
    _cache: dict[tuple[int, bool], Served] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, cassette: Cassette) -> Facts:
        plan = plan_from(cassette)
        declared = cast(list[JSONObject], plan.params.get("tools") or [])
        return cls(
            cassette,
            frozenset(str(tool["name"]) for tool in plan.functions),
            frozenset(plan.browser_members),
            plan.computer,
            frozenset(str(tool.get("type")) for tool in declared),
            max_retries_of(cassette),
        )

    @property
    def mcp(self) -> bool:
        return "mcp" in self.server_tools

    @property
    def waits_for_completion(self) -> bool:
        """A declared server tool holds every local call until the response completes, even in eager runs."""
        return bool(self.server_tools - {"computer", "computer_use_preview"})

    @cached_property
    def stream_only(self) -> bool:
        return any(
            fault.kind in STREAM_ONLY_FAULTS for exchange in self.cassette.exchanges for fault in exchange.faults
        )

    @cached_property
    def http_failures(self) -> bool:
        return any(self.served(index, False).http_status is not None for index in range(len(self.cassette.exchanges)))

    def served(self, index: int, streamed: bool) -> Served:
        key = (index, streamed)
        if key not in self._cache:
            self._cache[key] = self._serve(index, streamed)
        return self._cache[key]

    # ------------------------------------------------------------------ reading one exchange

    def _call(self, item: JSONObject, position: int = 0) -> Call | None:
        kind = item.get("type")
        if kind == "computer_call":
            status = str(item.get("status"))
            return Call(str(item.get("call_id")), "computer", "computer", status, self.computer, True, position)
        if kind != "function_call":
            return None
        name = str(item.get("name"))
        browser = name.startswith("browser_") and name[8:] in self.browser_members
        return Call(
            str(item.get("call_id")),
            "browser" if browser else "function",
            name,
            str(item.get("status", "completed")),
            browser or name in self.functions,
            _well_formed(item),
            position,
        )

    def _server_problem(self, item: JSONObject) -> bool:
        tools = SERVER_ITEM_TOOLS.get(str(item.get("type")))
        if tools is None:
            return False
        return (
            not (tools & self.server_tools) or item.get("status") not in (None, "completed") or bool(item.get("error"))
        )

    def _serve(self, index: int, streamed: bool) -> Served:
        exchange = self.cassette.exchanges[index]
        http = _http_status(exchange)
        if http is not None:
            return Served(index, http)
        response = exchange.response
        if not streamed or response.events is None:
            final = response.final_response() or {}
            return self._read(index, final, final.get("status"), (), False, False, False)
        events, cut, inside = _delivered(exchange)
        terminal = next((event for event in events if event.get("type") in TERMINAL_EVENTS), None)
        irregular = any(fault.kind in ("output_index", "drop_event", "completed_output") for fault in exchange.faults)
        dones = [event for event in events if event.get("type") == DONE]
        seen: set[str] = set()
        repeated: set[object] = set()
        for event in events:
            if str(event.get("type")).endswith(".delta"):
                # Equal deltas are ordinary ("l" twice in "Hello"): a delta sent twice cannot be told from them.
                continue
            fingerprint = json.dumps(event | {"sequence_number": 0}, sort_keys=True)
            if fingerprint in seen:
                repeated.add(event.get("type"))
            seen.add(fingerprint)
        irregular |= bool(repeated)
        arrived = tuple(
            str(cast(JSONObject, event["item"]).get("call_id"))
            for event in dones
            if isinstance(event.get("item"), dict)
            and cast(JSONObject, event["item"]).get("type") in ("function_call", "computer_call")
            and (call := self._call(cast(JSONObject, event["item"]))) is not None
            and call.runnable
        )
        if terminal is None:
            # Cut before the terminal event: what arrived is all the run could know of this response.
            items = [cast(JSONObject, event["item"]) for event in dones if isinstance(event.get("item"), dict)]
            served = self._read(index, {"output": items}, None, arrived, irregular, True, inside)
        else:
            final = cast(JSONObject, terminal["response"])
            served = self._read(index, final, final.get("status"), arrived, irregular, cut, inside)
        return replace(served, repeated_done=DONE in repeated, repeated_added=ADDED in repeated)

    def _read(
        self,
        index: int,
        response: JSONObject,
        status: object,
        arrived: tuple[str, ...],
        irregular: bool,
        cut: bool,
        inside: bool,
    ) -> Served:
        output = [item for item in cast(list[object], response.get("output") or []) if isinstance(item, dict)]
        items = cast(list[JSONObject], output)
        calls = tuple(call for position, item in enumerate(items) if (call := self._call(item, position)) is not None)
        problems = [position for position, item in enumerate(items) if self._server_problem(item)]
        finals = [
            item
            for item in items
            if item.get("type") == "message" and item.get("status") == "completed" and item.get("phase") != "commentary"
        ]
        return Served(
            index,
            None,
            response_id=str(response.get("id")) if response.get("id") is not None else None,
            status=None if status is None else str(status),
            calls=calls,
            arrived=arrived,
            server_problem_at=problems[0] if problems else None,
            final_message=bool(finals),
            # Server results are not local effects: beside an answer they leave the runner nothing to send back.
            answer_only=bool(finals)
            and all(item.get("type") in ("message", "reasoning", *SERVER_ITEM_TOOLS) for item in items),
            irregular=irregular,
            cut=cut,
            cut_inside_event=inside,
        )


def _http_status(exchange: Exchange) -> int | None:
    for fault in exchange.faults:
        if fault.kind == "http_status":
            return cast(int, fault.fields["status"])
    return exchange.response.status if exchange.response.status >= 400 else None


def _delivered(exchange: Exchange) -> tuple[list[JSONObject], bool, bool]:
    """The events a streamed request receives, whether the stream was cut, and whether it ended inside an event."""
    events = list(exchange.response.events or ())
    cut = inside = False
    for fault in exchange.faults:
        if fault.kind == "drop_event":
            events = [event for event in events if event.get("sequence_number") != fault.fields["sequence"]]
        elif fault.kind == "cut_stream":
            after = cast(int, fault.fields["after_sequence"])
            kept = [event for event in events if cast(int, event["sequence_number"]) <= after]
            cut = cut or len(kept) < len(events)
            inside = inside or (bool(fault.fields.get("mid_event")) and len(kept) < len(events))
            events = kept
    return events, cut, inside


def exchanges_with_calls(facts: Facts, streamed: bool) -> Iterator[Served]:
    """Every exchange that carries local calls, as ``streamed`` delivery serves it."""
    for index in range(len(facts.cassette.exchanges)):
        served = facts.served(index, streamed)
        if served.calls:
            yield served


__all__ = ["RETRYABLE", "Call", "Facts", "Served", "exchanges_with_calls"]
