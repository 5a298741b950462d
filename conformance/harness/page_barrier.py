"""The page barrier: positive proof that every fixture page has reported everything it saw so far.

Fixture pages post their effects with beacons, which reach the server in no particular order and with no
timing guarantee, so "the page has gone quiet" cannot be judged from silence. Instead each page document (an
*instance*) keeps a WebSocket open to the fixture server (``__barrier``). To settle, the harness raises the
session's *marker*; every open page receives it and answers "acknowledged marker M, my last effect is number N"
after flushing what it still held back. The barrier holds once every page has answered and every effect up to
its N has arrived (a gap in the numbers is a beacon still in flight). This is the browser twin of the computer
desktop's input barrier (``computer_environment``): the harness sends something through the same queue as the
driver's input and waits until the page reports it.

A WebSocket rather than a held HTTP request, because a held request would keep a driver that waits for "network
idle" from ever seeing it, and because browsers cap held HTTP connections per host at six.

Pages that navigate away, close or have not yet connected are covered too: a page says goodbye (with its last
number) when it is hidden; a page whose socket closed without one gets a short grace for stragglers; and a page
document the server served but whose recorder has not connected yet is waited for (boundedly), so the barrier
never returns while a page a driver just opened is still starting. A page that cannot open the socket (a driver's
proxy that refuses WebSockets) says so with a beacon, and the caller falls back to a quiet window for it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import select
import socket
import struct
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# A served page document gets this long to connect its recorder before the barrier stops waiting for it (a page
# fetched by something that is not a tab, or a tab closed while loading, never connects).
DOCUMENT_GRACE_SECONDS = 2.0
# A page whose socket closed without a goodbye may still have beacons in flight: they get this long.
CLOSE_GRACE_SECONDS = 0.3
_WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_MAX_FRAME_BYTES = 64 * 1024


@dataclass
class PageInstance:
    """One page document's barrier state, as its recorder reported it."""

    page: str
    origin: str
    connected: bool = True
    acked: int = 0  # the highest marker the page acknowledged
    last: int = 0  # the page's last effect number when it last acknowledged or said goodbye
    goodbye: bool = False
    closed_at: float | None = None
    unreachable: bool = False  # the page could not open its socket


@dataclass
class BarrierState:
    """The barrier bookkeeping of one session (kept by the effect store, under its lock)."""

    marker: int = 0
    # marker -> when the kit raised it (wall clock, as request times): a page acting on a marker acts after this
    raised_at: dict[int, float] = field(default_factory=dict)
    instances: dict[str, PageInstance] = field(default_factory=dict)
    # (page, origin) -> times the server served that page document with the recorder in it
    served: dict[tuple[str, str], list[float]] = field(default_factory=dict)

    def document_served(self, page: str, origin: str) -> None:
        self.served.setdefault((page, origin), []).append(time.monotonic())

    def connected(self, instance: str, page: str, origin: str) -> None:
        known = self.instances.get(instance)
        if known is None:
            self.instances[instance] = PageInstance(page, origin)
        else:  # a page back from the back/forward cache, or reconnecting after its proxy dropped an idle socket
            known.connected, known.goodbye, known.closed_at = True, False, None

    def disconnected(self, instance: str) -> None:
        known = self.instances.get(instance)
        if known is not None and known.connected:
            known.connected, known.closed_at = False, time.monotonic()

    def reported(self, instance: str, page: str, origin: str, message: Mapping[str, Any]) -> None:
        """A page's answer: ``{"ack": M, "last": N}``, ``{"goodbye": true, "last": N}`` or ``{"unreachable": true}``."""
        known = self.instances.setdefault(instance, PageInstance(page, origin, connected=False))
        last = message.get("last")
        if isinstance(last, int):
            known.last = max(known.last, last)
        ack = message.get("ack")
        if isinstance(ack, int):
            known.acked = max(known.acked, ack)
        if message.get("goodbye") is True:
            known.goodbye = True
        if message.get("unreachable") is True:
            known.unreachable = True

    def waiting_for(self, marker: int, effects: list[Mapping[str, Any]], now: float) -> list[str]:
        """What keeps barrier ``marker`` from holding, one phrase per page; empty once it holds."""
        numbers: dict[str, set[int]] = {}
        first_seen: dict[str, float] = {}
        for effect in effects:
            instance = effect.get("instance")
            if isinstance(instance, str) and isinstance(effect.get("seq"), int):
                numbers.setdefault(instance, set()).add(int(effect["seq"]))
                first_seen.setdefault(instance, float(effect.get("received", now)))
        waiting = []
        for instance, state in self.instances.items():
            seen = numbers.get(instance, set())
            name = f"{state.page} ({state.origin})"
            if state.unreachable and not state.connected:
                waiting.append(f"{name} could not open its barrier socket")
            elif state.connected and state.acked < marker:
                waiting.append(f"{name} has not acknowledged")
            elif state.connected or state.goodbye:
                missing = set(range(1, state.last + 1)) - seen
                if missing:
                    waiting.append(f"{name} effects {sorted(missing)[:5]} still in flight")
            elif state.closed_at is not None and now - state.closed_at < CLOSE_GRACE_SECONDS:
                waiting.append(f"{name} closed without a goodbye")
        for instance, seen_at in first_seen.items():
            if instance not in self.instances and now - seen_at < DOCUMENT_GRACE_SECONDS:
                waiting.append(f"a page with effects ({instance}) has not connected")
        connected: dict[tuple[str, str], int] = {}
        for state in self.instances.values():
            connected[(state.page, state.origin)] = connected.get((state.page, state.origin), 0) + 1
        for (page, origin), times in self.served.items():
            if len(times) > connected.get((page, origin), 0) and now - times[-1] < DOCUMENT_GRACE_SECONDS:
                waiting.append(f"{page} ({origin}) was served but has not connected")
        return waiting

    def unreachable(self) -> list[str]:
        return [f"{state.page} ({state.origin})" for state in self.instances.values() if state.unreachable]


def accept_key(key: str) -> str:
    """The handshake answer to a client's ``Sec-WebSocket-Key``."""
    return base64.b64encode(hashlib.sha1((key + _WEBSOCKET_GUID).encode()).digest()).decode()


def text_frame(text: str) -> bytes:
    """One unmasked, final text frame (servers never mask)."""
    payload = text.encode()
    if len(payload) < 126:
        return bytes([0x81, len(payload)]) + payload
    return bytes([0x81, 126]) + struct.pack("!H", len(payload)) + payload


class _Closed(Exception):
    """The page's side of the socket is gone."""


def _read_exactly(connection: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise _Closed
        data += chunk
    return data


def read_frame(connection: socket.socket) -> tuple[int, bytes]:
    """One client frame: (opcode, unmasked payload). Fragmented messages are not used by the recorder."""
    head = _read_exactly(connection, 2)
    opcode, length = head[0] & 0x0F, head[1] & 0x7F
    if length == 126:
        length = struct.unpack("!H", _read_exactly(connection, 2))[0]
    elif length == 127:
        length = struct.unpack("!Q", _read_exactly(connection, 8))[0]
    if length > _MAX_FRAME_BYTES:
        raise _Closed
    mask = _read_exactly(connection, 4) if head[1] & 0x80 else b"\0\0\0\0"
    payload = _read_exactly(connection, length)
    return opcode, bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))


def serve_page(
    connection: socket.socket,
    next_marker: Callable[[int], int | None],
    report: Callable[[Mapping[str, Any]], None],
) -> None:
    """Relay markers to one page and its answers back until the page or the session goes away.

    ``next_marker(sent)`` waits briefly (a few milliseconds: answers are read between waits) for a marker above
    ``sent`` and returns the current one, or None once the session is closed; ``report`` takes each answer.
    """
    sent = 0
    try:
        while True:
            marker = next_marker(sent)
            if marker is None:
                return
            if marker > sent:
                connection.sendall(text_frame(json.dumps({"marker": marker})))
                sent = marker
            while select.select([connection], [], [], 0)[0]:
                opcode, payload = read_frame(connection)
                if opcode == 0x8:  # close
                    return
                if opcode == 0x9:  # ping: answer so a proxy in between sees a live socket
                    connection.sendall(bytes([0x8A, len(payload)]) + payload)
                elif opcode == 0x1:
                    try:
                        message = json.loads(payload)
                    except ValueError:
                        continue
                    if isinstance(message, dict):
                        report(message)
    except (_Closed, OSError):
        return


__all__ = ["DOCUMENT_GRACE_SECONDS", "BarrierState", "PageInstance", "accept_key", "serve_page", "text_frame"]
