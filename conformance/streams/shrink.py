"""Delta debugging over a cassette: remove exchanges, output items, events, deltas and faults while a failure stays.

:func:`shrink` takes a cassette and a predicate (does this cassette still show the failure?) and keeps the
smallest cassette it can reach by removing parts one kind at a time, coarse to fine: whole exchanges (in halves,
then quarters, down to one), whole output items (every event of the item and its place in the completed
response), faults, everything that grows one item, single events (again in shrinking chunks), and runs of deltas
merged into one. Every candidate
is a valid cassette a server could have sent: sequence numbers keep increasing, an item's added and done events
go only with the whole item, what grows an item (parts, texts, deltas) goes all at once (the item then arrives
whole in its done event) or as repeated copies, progress events and surplus deltas, a fault that named a removed
event moves to the event before it or goes, output indices after a removed item close up, and a recorded
cassette's later requests lose the removed items and their outputs, so what the runner sends still matches what
the recording expects.

The predicate decides what "the same failure" means: the fuzz check asks for the same broken rule in the same
mode, ``driverkit shrink`` for the same replay divergence. Results of the predicate are cached per candidate.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Final, cast

from conformance.cassettes import (
    TERMINAL_EVENTS,
    Cassette,
    CassetteError,
    Exchange,
    Fault,
    JSONObject,
    RecordedRequest,
    RecordedResponse,
    loads,
)
from conformance.streams.events import ADDED, DONE

Predicate = Callable[[Cassette], bool]
# Stop shrinking once a pass changes nothing, or after this many full passes (each pass tries every kind).
MAX_PASSES: Final = 8
SEQUENCE_FIELDS: Final = {"cut_stream": "after_sequence", "drop_event": "sequence", "output_index": "sequence"}


def size(cassette: Cassette) -> int:
    """How big a cassette is, in events: every streamed event, and one per exchange answered with a body."""
    return sum(
        len(exchange.response.events) if exchange.response.events is not None else 1 for exchange in cassette.exchanges
    )


@dataclass
class Reduction:
    """The smallest cassette found, what was removed to get there (in order), and how many candidates were run."""

    original: Cassette
    cassette: Cassette
    removed: list[str] = field(default_factory=list)
    tries: int = 0
    seconds: float = 0.0

    def report(self) -> str:
        lines = [
            f"shrunk from {len(self.original.exchanges)} exchange(s), {size(self.original)} event(s) to "
            f"{len(self.cassette.exchanges)} exchange(s), {size(self.cassette)} event(s) "
            f"({self.tries} candidate(s) replayed in {self.seconds:.1f} s)",
        ]
        lines += [f"removed: {what}" for what in self.removed]
        return "\n".join(lines)


# ------------------------------------------------------------------------------------------ editing


def _items(response: JSONObject | None) -> list[JSONObject]:
    return [
        cast(JSONObject, item)
        for item in cast(list[object], (response or {}).get("output") or [])
        if isinstance(item, dict)
    ]


def _identities(items: list[JSONObject]) -> tuple[set[str], set[str]]:
    ids = {str(item["id"]) for item in items if isinstance(item.get("id"), str)}
    call_ids = {str(item["call_id"]) for item in items if isinstance(item.get("call_id"), str)}
    return ids, call_ids


def _purge(request: RecordedRequest, ids: set[str], call_ids: set[str]) -> RecordedRequest:
    """``request`` without the input items (and call outputs) of removed output items."""
    body = request.body
    if body is None or not isinstance(body.get("input"), list):
        return request
    kept = [
        item
        for item in cast(list[object], body["input"])
        if not (
            isinstance(item, dict)
            and (
                cast(JSONObject, item).get("id") in ids
                or cast(JSONObject, item).get("call_id") in call_ids
                or cast(JSONObject, item).get("approval_request_id") in ids
            )
        )
    ]
    return replace(request, body={**body, "input": kept})


def _purge_after(exchanges: list[Exchange], start: int, items: list[JSONObject]) -> list[Exchange]:
    ids, call_ids = _identities(items)
    if not ids and not call_ids:
        return exchanges
    return [
        exchange if index < start else replace(exchange, request=_purge(exchange.request, ids, call_ids))
        for index, exchange in enumerate(exchanges)
    ]


def _fix_faults(exchange: Exchange) -> Exchange:
    """Faults that still name existing events: a cut moves back to the event before a removed one, others go."""
    events = exchange.response.events
    if events is None:
        return replace(exchange, faults=tuple(fault for fault in exchange.faults if fault.kind == "http_status"))
    sequences = [cast(int, event["sequence_number"]) for event in events]
    faults: list[Fault] = []
    for fault in exchange.faults:
        name = SEQUENCE_FIELDS.get(fault.kind)
        if name is None:
            faults.append(fault)
            continue
        target = cast(int, fault.fields[name])
        if target in sequences:
            fields = dict(fault.fields)
        elif fault.kind == "cut_stream" and any(sequence < target for sequence in sequences):
            fields = {**fault.fields, name: max(sequence for sequence in sequences if sequence < target)}
        else:
            continue
        if fault.kind == "cut_stream" and fields.get("mid_event") and cast(int, fields[name]) >= max(sequences):
            fields.pop("mid_event")
        faults.append(Fault(fault.kind, fields))
    return replace(exchange, faults=tuple(faults))


def _with_events(exchange: Exchange, events: list[JSONObject]) -> Exchange:
    return _fix_faults(replace(exchange, response=replace(exchange.response, events=tuple(events))))


def _valid(cassette: Cassette) -> Cassette | None:
    try:
        return loads(cassette.dumps(), "<shrink candidate>")
    except CassetteError:
        return None


def without_exchanges(cassette: Cassette, removed: set[int]) -> Cassette:
    exchanges = list(cassette.exchanges)
    for index in sorted(removed, reverse=True):
        items = _items(exchanges[index].response.final_response())
        exchanges = _purge_after(exchanges, index + 1, items)
    return replace(
        cassette, exchanges=tuple(exchange for index, exchange in enumerate(exchanges) if index not in removed)
    )


def without_item(cassette: Cassette, exchange_index: int, output_index: int) -> Cassette | None:
    """The cassette without output item ``output_index`` of exchange ``exchange_index`` (its events and its place
    in the completed response); later items move up one index."""
    exchange = cassette.exchanges[exchange_index]
    events = exchange.response.events
    if events is None:
        return None
    done = next(
        (
            event
            for event in events
            if event.get("output_index") == output_index and isinstance(event.get("item"), dict)
        ),
        None,
    )
    removed_item = cast(JSONObject, done["item"]) if done is not None else None
    kept: list[JSONObject] = []
    for event in events:
        index = event.get("output_index")
        if index == output_index:
            continue
        if isinstance(index, int) and index > output_index:
            event = {**event, "output_index": index - 1}
        if event.get("type") in TERMINAL_EVENTS and isinstance(event.get("response"), dict):
            response = cast(JSONObject, event["response"])
            output = _items(response)
            if removed_item is not None and removed_item.get("id") is not None:
                output = [item for item in output if item.get("id") != removed_item.get("id")]
            elif output_index < len(output):
                output = output[:output_index] + output[output_index + 1 :]
            event = {**event, "response": {**response, "output": output}}
        kept.append(event)
    exchanges = list(cassette.exchanges)
    exchanges[exchange_index] = _with_events(exchange, kept)
    if removed_item is not None:
        exchanges = _purge_after(exchanges, exchange_index + 1, [removed_item])
    return replace(cassette, exchanges=tuple(exchanges))


def growth(events: Sequence[JSONObject], output_index: int) -> set[int]:
    """Positions of the events that grow item ``output_index`` between its added and done events (deltas, parts,
    texts, arguments, progress): without them the item arrives whole in its done event."""
    return {
        position
        for position, event in enumerate(events)
        if event.get("output_index") == output_index and event.get("type") not in (ADDED, DONE)
    }


def without_events(cassette: Cassette, exchange_index: int, positions: set[int]) -> Cassette | None:
    exchange = cassette.exchanges[exchange_index]
    events = list(exchange.response.events or ())
    if 0 in positions or not events:
        return None  # a stream starts with response.created
    kept = [event for position, event in enumerate(events) if position not in positions]
    exchanges = list(cassette.exchanges)
    exchanges[exchange_index] = _with_events(exchange, kept)
    return replace(cassette, exchanges=tuple(exchanges))


def without_fault(cassette: Cassette, exchange_index: int, fault_index: int) -> Cassette:
    exchange = cassette.exchanges[exchange_index]
    faults = exchange.faults[:fault_index] + exchange.faults[fault_index + 1 :]
    exchanges = list(cassette.exchanges)
    exchanges[exchange_index] = replace(exchange, faults=faults)
    return replace(cassette, exchanges=tuple(exchanges))


def merged_deltas(cassette: Cassette, exchange_index: int, first: int) -> Cassette | None:
    """The run of same-kind deltas starting at position ``first`` of exchange ``exchange_index`` as one delta."""
    events = list(cassette.exchanges[exchange_index].response.events or ())
    head = events[first]
    kind = head.get("type")
    place = {key: head.get(key) for key in ("item_id", "output_index", "content_index", "summary_index")}
    end = first + 1
    while (
        end < len(events)
        and events[end].get("type") == kind
        and all(events[end].get(key) == value for key, value in place.items())
    ):
        end += 1
    if end - first < 2:
        return None
    text = "".join(str(event.get("delta", "")) for event in events[first:end])
    events[first:end] = [{**head, "delta": text}]
    exchanges = list(cassette.exchanges)
    exchanges[exchange_index] = _with_events(cassette.exchanges[exchange_index], events)
    return replace(cassette, exchanges=tuple(exchanges))


def renumbered(cassette: Cassette) -> Cassette:
    """Sequence numbers 0, 1, 2... in every stream again (faults follow their events)."""
    exchanges: list[Exchange] = []
    for exchange in cassette.exchanges:
        events = exchange.response.events
        if events is None:
            exchanges.append(exchange)
            continue
        mapping = {cast(int, event["sequence_number"]): number for number, event in enumerate(events)}
        numbered = tuple({**event, "sequence_number": mapping[cast(int, event["sequence_number"])]} for event in events)
        faults = tuple(
            Fault(
                fault.kind,
                {
                    **fault.fields,
                    SEQUENCE_FIELDS[fault.kind]: mapping[cast(int, fault.fields[SEQUENCE_FIELDS[fault.kind]])],
                },
            )
            if fault.kind in SEQUENCE_FIELDS
            else fault
            for fault in exchange.faults
        )
        exchanges.append(
            Exchange(exchange.request, RecordedResponse(exchange.response.status, events=numbered), faults)
        )
    return replace(cassette, exchanges=tuple(exchanges))


# ------------------------------------------------------------------------------------------ candidates


def _chunks(count: int) -> Iterator[set[int]]:
    """Sets of positions to remove, halves first, then quarters, down to single positions (ddmin's order)."""
    size_ = max(1, count // 2)
    while True:
        for start in range(0, count, size_):
            yield set(range(start, min(count, start + size_)))
        if size_ == 1:
            return
        size_ = max(1, size_ // 2)


def _exchange_candidates(cassette: Cassette) -> Iterator[tuple[str, Cassette | None]]:
    count = len(cassette.exchanges)
    for removed in _chunks(count):
        if len(removed) < count:
            shown = ", ".join(str(index) for index in sorted(removed))
            yield f"exchange(s) {shown}", without_exchanges(cassette, removed)


def _item_candidates(cassette: Cassette) -> Iterator[tuple[str, Cassette | None]]:
    for exchange_index, exchange in reversed(list(enumerate(cassette.exchanges))):
        indices = sorted(
            {
                cast(int, event["output_index"])
                for event in exchange.response.events or ()
                if isinstance(event.get("output_index"), int)
            },
            reverse=True,
        )
        for output_index in indices:
            yield (
                f"output item {output_index} of exchange {exchange_index}",
                without_item(cassette, exchange_index, output_index),
            )


def _growth_candidates(cassette: Cassette) -> Iterator[tuple[str, Cassette | None]]:
    for exchange_index, exchange in reversed(list(enumerate(cassette.exchanges))):
        events = exchange.response.events or ()
        indices = sorted(
            {cast(int, event["output_index"]) for event in events if isinstance(event.get("output_index"), int)}
        )
        for output_index in indices:
            positions = growth(events, output_index)
            if positions:
                yield (
                    f"the {len(positions)} event(s) growing output item {output_index} of exchange {exchange_index}",
                    without_events(cassette, exchange_index, positions),
                )


def _fault_candidates(cassette: Cassette) -> Iterator[tuple[str, Cassette | None]]:
    for exchange_index, exchange in enumerate(cassette.exchanges):
        for fault_index, fault in enumerate(exchange.faults):
            yield (
                f"the {fault.kind} fault of exchange {exchange_index}",
                without_fault(cassette, exchange_index, fault_index),
            )


# Events that say how far something got but open or close nothing: a run of them can lose any one.
_PROGRESS: Final = ("response.in_progress", ".searching", "_call.in_progress", "_call.completed")


def _group(event: JSONObject) -> tuple[object, ...]:
    return tuple(event.get(key) for key in ("type", "item_id", "output_index", "content_index", "summary_index"))


def removable(events: Sequence[JSONObject]) -> list[int]:
    """Positions of the events that may go, alone or together, so that what is left is still a stream a server
    could send: repeated copies of earlier events, progress events, and every delta of a text or of arguments but
    its first. Everything that opens or closes something (the response, an item, a content part, a text) goes only
    with its whole item, so a shrunk stream still announces, grows and closes what it completes with."""
    seen: set[str] = set()
    first_deltas: set[tuple[object, ...]] = set()
    positions: list[int] = []
    for position, event in enumerate(events):
        kind = str(event.get("type"))
        fingerprint = json.dumps({**event, "sequence_number": 0}, sort_keys=True)
        repeated = fingerprint in seen
        seen.add(fingerprint)
        surplus_delta = kind.endswith(".delta") and _group(event) in first_deltas
        if kind.endswith(".delta"):
            first_deltas.add(_group(event))
        if position > 0 and (repeated or kind.endswith(_PROGRESS) or surplus_delta):
            positions.append(position)
    return positions


def _event_candidates(cassette: Cassette) -> Iterator[tuple[str, Cassette | None]]:
    for exchange_index, exchange in reversed(list(enumerate(cassette.exchanges))):
        events = exchange.response.events or ()
        choices = removable(events)
        for removed in _chunks(len(choices)):
            positions = {choices[index] for index in removed}
            kinds = sorted({str(events[position]["type"]) for position in positions})
            yield (
                f"{len(positions)} event(s) of exchange {exchange_index} ({', '.join(kinds)})",
                without_events(cassette, exchange_index, positions),
            )


def _delta_candidates(cassette: Cassette) -> Iterator[tuple[str, Cassette | None]]:
    for exchange_index, exchange in enumerate(cassette.exchanges):
        events = exchange.response.events or ()
        for position, event in enumerate(events):
            if str(event.get("type")).endswith(".delta") and (
                position == 0 or events[position - 1].get("type") != event.get("type")
            ):
                yield (
                    f"split deltas of exchange {exchange_index} (merged into one)",
                    merged_deltas(cassette, exchange_index, position),
                )


CANDIDATES: Final = (
    _exchange_candidates,
    _item_candidates,
    _fault_candidates,
    _growth_candidates,
    _event_candidates,
    _delta_candidates,
)


def _fingerprint(cassette: Cassette) -> str:
    return hashlib.sha256(cassette.dumps().encode()).hexdigest()


def shrink(cassette: Cassette, still_fails: Predicate, *, budget_seconds: float | None = None) -> Reduction:
    """The smallest cassette reachable from ``cassette`` on which ``still_fails`` holds (``cassette`` itself must
    fail). ``budget_seconds`` stops early with the best cassette so far."""
    started = time.monotonic()
    reduction = Reduction(cassette, cassette)
    known: dict[str, bool] = {}

    def fails(candidate: Cassette) -> bool:
        key = _fingerprint(candidate)
        if key not in known:
            reduction.tries += 1
            known[key] = still_fails(candidate)
        return known[key]

    def out_of_time() -> bool:
        return budget_seconds is not None and time.monotonic() - started > budget_seconds

    for _ in range(MAX_PASSES):
        progressed = False
        for candidates in CANDIDATES:
            restart = True
            while restart and not out_of_time():
                restart = False
                for description, raw in candidates(reduction.cassette):
                    candidate = None if raw is None else _valid(raw)
                    if candidate is None or size(candidate) > size(reduction.cassette):
                        continue
                    if candidate.dumps() == reduction.cassette.dumps():
                        continue
                    if fails(candidate):
                        reduction.cassette = candidate
                        reduction.removed.append(description)
                        progressed = restart = True
                        break
        if not progressed or out_of_time():
            break
    final = _valid(renumbered(reduction.cassette))
    if final is not None and final.dumps() != reduction.cassette.dumps() and fails(final):
        reduction.cassette = final
    reduction.seconds = time.monotonic() - started
    return reduction


__all__ = [
    "Reduction",
    "merged_deltas",
    "renumbered",
    "shrink",
    "size",
    "without_events",
    "without_exchanges",
    "without_fault",
    "without_item",
]
