"""Mixed: browser tools beside an ordinary function and a Pydantic function tool, with an approval callback.

    python -m reference.examples.mixed            # rehearsal: recorded model turns, real browser and page
    python -m reference.examples.mixed --live     # OPENAI_API_KEY and OPENAI_MODEL; asks before each action

``lookup_member`` is registered with its JSON schema and an executor; ``CheckAvailability`` comes from a Pydantic
model through ``RegisteredFunction.from_tool``, which validates arguments before the executor sees them. Browser
actions go through the Fieldwork toolset, whose ``confirm`` callback must approve each one. The booking is then
checked against the form's own record.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Final

import openai
from openai import pydantic_responses_function_tool
from openai.lib.responses_tool_runner import RegisteredFunction
from pydantic import BaseModel

from ._support import ExampleResult, main_sync
from .fieldwork import book

TASK = (
    "Member M-2047 wants a table for 2 on 2026-12-31, at the earliest available time from 19:00. Look the member "
    "up, check availability, then book it on the reservation form with any access needs they have and the note "
    "'Member M-2047'."
)

# The application's own data, standing in for a membership system and a table planner.
_MEMBERS = {"M-2047": {"name": "Katherine Johnson", "access": "step-free access needed"}}
_FREE_SEATS = {"2026-12-31": {"18:30": 0, "19:00": 0, "19:30": 6, "20:00": 4}}


def lookup_member(args: dict[str, object]) -> str:
    member = _MEMBERS.get(str(args.get("membership")))
    return json.dumps(member) if member else "No member has that number."


LOOKUP_TOOL = RegisteredFunction(
    tool={
        "type": "function",
        "name": "lookup_member",
        "description": "Look up a member's name and access needs by membership number (like M-1234).",
        "parameters": {
            "type": "object",
            "properties": {"membership": {"type": "string"}},
            "required": ["membership"],
            "additionalProperties": False,
        },
        "strict": True,
    },
    execute=lookup_member,
)

# What the example's reservation must end up as, checked against the page's record (the rehearsal
# cassette in tools/cassettes/example_sources.py books the same).
RESERVATION: Final = {
    "guest_name": "Katherine Johnson",
    "date": "2026-12-31",
    "party_size": 2,
    "time_slot": "19:30",
    "notes": "Member M-2047",
    "accessibility": True,
}


class CheckAvailability(BaseModel):
    """Find the earliest time slot with room for the party on a date, at or after a given time."""

    date: str
    party_size: int
    after: str


def check_availability(request: CheckAvailability) -> str:
    slots = _FREE_SEATS.get(request.date, {})
    for slot in sorted(slots):
        if slot >= request.after and slots[slot] >= request.party_size:
            return f"{slot} is the earliest slot with room for {request.party_size} on {request.date}."
    return f"No slot from {request.after} has room for {request.party_size} on {request.date}."


AVAILABILITY_TOOL = RegisteredFunction.from_tool(
    pydantic_responses_function_tool(CheckAvailability), execute=check_availability
)


def run(client: openai.OpenAI, model: str, approve: Callable[[str], bool], *, max_steps: int = 10) -> ExampleResult:
    return book(
        client, model, TASK, RESERVATION, approve, functions=[LOOKUP_TOOL, AVAILABILITY_TOOL], max_steps=max_steps
    )


def main(argv: Sequence[str] | None = None) -> int:
    return main_sync(__doc__, argv, "mixed", run)


if __name__ == "__main__":
    sys.exit(main())
