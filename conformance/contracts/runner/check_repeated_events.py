"""One stream event sent twice, for each kind of event a call's lifecycle has: found by the fuzz check, kept here.

A server resending a write repeats an event; the documents do not describe repeated events (driverkit clauses
--open-questions, OQ-003), but they forbid running a completed item twice and promise the same semantics in every
mode, and a plain request never sees the repeat. So in every mode the call runs once and the run ends as the plain
run does. Each case is one generated run (``conformance/streams/strategies.py``): a ``lookup`` call streamed with
its lifecycle events, one of them sent twice, then an answer; the fuzz check's rules judge it.

spec/000 "Streaming and interrupted actions" (a completed item never runs twice; every mode the same semantics).
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest

from conformance.assertions import violation
from conformance.cassettes import Cassette
from conformance.contracts.runner._fuzz import judge
from conformance.rig.modes import active_modes
from conformance.streams.strategies import ItemPlan, RunPlan, ToolsPlan, TurnPlan, render

# The events of one call's lifecycle and of the response around it (deltas aside: a repeated delta cannot be
# told from an equal one).
REPEATED = (
    "response.in_progress",
    "response.output_item.added",
    "response.function_call_arguments.done",
    "response.output_item.done",
)


@cache
def repeating(event: str) -> Cassette:
    """The run whose first response sends its first ``event`` twice (the copy right after it, numbered on)."""
    plan = RunPlan(ToolsPlan(), (TurnPlan((ItemPlan("function"),)), TurnPlan((ItemPlan("message", text="Found."),))))
    cassette = render(plan, scenario=f"repeated-{event.removeprefix('response.')}")
    first = cassette.exchanges[0]
    stream = list(first.response.events or ())
    at = next(position for position, sent in enumerate(stream) if sent["type"] == event)
    doubled = [*stream[: at + 1], dict(stream[at]), *stream[at + 1 :]]
    numbered = tuple({**sent, "sequence_number": number} for number, sent in enumerate(doubled))
    changed = replace(first, response=replace(first.response, events=numbered))
    return replace(cassette, exchanges=(changed, *cassette.exchanges[1:]))


def _id(event: str) -> str:
    """The case ID: the node ID of a Node SDK run says node, since a Node deviation names only Node checks."""
    name = event.removeprefix("response.")
    return f"node-{name}" if active_modes()[0].flavour == "node" else name


@pytest.mark.clause("RN-STREAM-006", "RN-LOOP-003")
@pytest.mark.node_sdk  # runs every mode of the SDK under check, the Node SDK's too
@pytest.mark.parametrize("event", REPEATED, ids=[_id(event) for event in REPEATED])
def test_a_repeated_event_changes_nothing(event: str) -> None:
    found = judge(repeating(event), active_modes(), ()).violations
    if found:
        first = next((rule for rule in found if rule.clause == "RN-STREAM-006"), found[0])
        violation(first.clause, first.render())
