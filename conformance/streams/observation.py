"""What one run of a runner over a cassette showed, as plain data the properties read.

The timeline is the runner suite's (``conformance/contracts/runner/_scenario.py``), one ordered list of what
happened: ``request:<n>`` as the transport receives request n, ``event:<type>`` for each stream event handed to
``on_event``, ``item:<id>`` right after an ``output_item.done`` event (the call ID of a call, else the item ID),
``call:<name>:<call id>`` as a local effect starts, ``done:``/``failed:<name>:<call id>`` as a function returns or
raises, and ``save:<n>`` as the ledger saves checkpoint n.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from conformance.cassettes import JSONObject
from conformance.rig import Mode
from conformance.rig.modes import ALL_MODES, NODE_MODES

_MODES: Final = {mode.id: mode for mode in (*ALL_MODES, *NODE_MODES)}


def mode_named(name: str) -> Mode:
    """The mode a violation names: a Python SDK mode (``async-eager-ledger``) or a Node SDK one (``node-stream``)."""
    try:
        return _MODES[name]
    except KeyError:
        raise ValueError(f"unknown mode {name!r}") from None


@dataclass(frozen=True)
class Observation:
    """One run in one mode. ``error`` is ``"<type>: <message>"`` when the run stopped; ``attempted``/``completed``
    are the stop's receipts when it carried them; ``response_id`` is the ID of the response a completed run
    returned; ``replies`` is what each registered function answered."""

    mode: Mode
    entries: tuple[str, ...]
    bodies: tuple[JSONObject, ...]
    checkpoints: tuple[JSONObject, ...] = ()
    error: str | None = None
    error_type: str | None = None
    attempted: tuple[str, ...] | None = None
    completed: tuple[str, ...] | None = None
    response_id: str | None = None
    replies: Mapping[str, str] = field(default_factory=dict)
    # What this observation saw besides requests and local effects: a replay (``driverkit replay``) shows neither
    # stream events nor checkpoint contents nor the returned response's ID, so rules needing them skip it.
    sees: frozenset[str] = frozenset({"events", "saves", "response"})

    @property
    def requests(self) -> int:
        return len(self.bodies)

    @property
    def stopped(self) -> bool:
        return self.error is not None

    def executed(self) -> list[str]:
        """Call IDs of the local effects that started, in order (a call twice if it ran twice)."""
        return [entry.rsplit(":", 1)[-1] for entry in self.entries if entry.startswith("call:")]

    def position(self, entry: str) -> int:
        """Where ``entry`` first appears on the timeline, -1 if it never does."""
        try:
            return self.entries.index(entry)
        except ValueError:
            return -1

    def call_position(self, call_id: str) -> int:
        """Where the effect of ``call_id`` first started, -1 if it never did."""
        for position, entry in enumerate(self.entries):
            if entry.startswith("call:") and entry.rsplit(":", 1)[-1] == call_id:
                return position
        return -1

    def response_span(self, exchange: int) -> tuple[int, int]:
        """The timeline positions between ``request:<exchange>`` and the next request (or the end)."""
        start = self.position(f"request:{exchange}")
        if start < 0:
            return -1, -1
        following = self.position(f"request:{exchange + 1}")
        return start, len(self.entries) if following < 0 else following

    def summary(self) -> str:
        """One line for a report: how the run ended, its requests and the calls that ran."""
        ending = f"stopped ({self.error})" if self.error else f"answered with {self.response_id}"
        return f"{self.mode.id}: {ending}; {self.requests} request(s); calls run {self.executed()}"


__all__ = ["Observation", "mode_named"]
