"""The runner closes each response stream it opened, whether the run succeeds, raises or is cancelled.

spec/000 "Streaming and interrupted actions".

The cassette's SSE body is served one event per chunk through a stream that records when it is closed, so a run
stopping mid-stream leaves an unread remainder that only an explicit close releases. A Node run reads its bodies
through fetch on the other side of the bridge, where this transport cannot see a close: there the kit's fetch serves
each event stream event by event and logs it closed once read to its end or cancelled
(:func:`~conformance.contracts.runner._node_scenario.run_recording_streams`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest

from conformance.assertions import expect
from conformance.contracts.runner._node_scenario import run_recording_streams
from conformance.contracts.runner._scenario import Function, Mode, ScenarioRun, Setup, Timeline, load, modes
from conformance.contracts.runner._scenario import _ObservedTransport as ObservedTransport


class _ClosingStream(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """An SSE body served event by event that puts ``closed:<n>`` on the timeline when it is closed."""

    def __init__(self, body: bytes, timeline: Timeline, index: int) -> None:
        self._chunks = [chunk + b"\n\n" for chunk in body.split(b"\n\n") if chunk]
        self._timeline = timeline
        self._index = index
        self._closed = False

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._timeline.add(f"closed:{self._index}")

    async def aclose(self) -> None:
        self.close()


class _ClosingTransport(ObservedTransport):
    def _respond(self, request: httpx2.Request, raw: bytes) -> httpx2.Response:
        response = super()._respond(request, raw)
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            return response
        stream = _ClosingStream(response.content, self.timeline, self.served - 1)
        self.timeline.add(f"opened:{self.served - 1}")
        return httpx2.Response(response.status_code, headers=response.headers, stream=stream, request=request)


def _run(cassette: str, setup: Setup, mode: Mode) -> tuple[Any, list[str]]:
    harness = ScenarioRun(load(cassette), setup, mode)
    if mode.flavour == "node":
        return run_recording_streams(harness), harness.timeline.entries
    harness.transport = _ClosingTransport(harness.cassette, harness.timeline)
    outcome = harness.run()
    return outcome, harness.timeline.entries


def _all_closed(entries: list[str], how: str) -> None:
    opened = sorted(entry.split(":")[1] for entry in entries if entry.startswith("opened:"))
    closed = sorted(entry.split(":")[1] for entry in entries if entry.startswith("closed:"))
    expect(opened != [], "RN-STREAM-015", f"no stream was opened ({how})")
    expect(closed == opened, "RN-STREAM-015", f"streams left open when the run {how}: opened {opened}, closed {closed}")


@pytest.mark.clause("RN-STREAM-015")
@pytest.mark.parametrize("mode", modes(stream=True))
def test_streams_closed_when_the_run_succeeds(mode: Mode) -> None:
    outcome, entries = _run("one-function", Setup(), mode)
    outcome.finished("RN-STREAM-015")
    _all_closed(entries, "succeeded")


@pytest.mark.clause("RN-STREAM-015")
@pytest.mark.parametrize("mode", modes(stream=True, eager=True))
def test_stream_closed_when_the_run_raises_mid_stream(mode: Mode) -> None:
    # The eager call fails while c2's event is still unread.
    setup = Setup(functions=(Function("lookup", reply=RuntimeError("executor failed")), Function("note")))
    outcome, entries = _run("two-functions-order", setup, mode)
    expect(outcome.error is not None, "RN-STREAM-015", "the run did not stop")
    _all_closed(entries, "raised")


@pytest.mark.clause("RN-STREAM-015")
@pytest.mark.parametrize("mode", modes(stream=True))
def test_stream_closed_when_the_run_is_cancelled_mid_stream(mode: Mode) -> None:
    stop: list[bool] = []

    def on_event(event: Any) -> None:
        if event.type == "response.output_item.done":
            stop.append(True)

    setup = Setup(
        functions=(Function("lookup"), Function("note")),
        run_options={"on_event": on_event, "cancelled": lambda: bool(stop)},
    )
    outcome, entries = _run("two-functions-order", setup, mode)
    expect(outcome.error is not None, "RN-STREAM-015", "the run was not cancelled")
    _all_closed(entries, "was cancelled")
