"""Which runs on generated streams a recorded known deviation already explains.

A known deviation (``conformance/known_deviations/<version>.toml``) names the checks it makes fail, as
``xfail(strict=True)``; a fuzzed run cannot be named in advance. So each deviation the generated streams can
provoke also has a recognizer here: given what a cassette serves and what one run did, does this run show that
deviation? A run that does is set aside from the cross-mode comparison, and the fuzz check reports it as the
known deviation instead of a finding. The other rules still apply to it (a set-aside run must still never run a
call twice, or one that may not run).

A recognizer acts only while its deviation is recorded for the SDK under check (same ID, same clause), so a
deviation that is fixed and removed from the file stops excusing anything at once, and the named checks'
strict xfail still notices the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from conformance.deviations import Deviation, load_deviations
from conformance.streams.facts import Facts, Served
from conformance.streams.observation import Observation


@dataclass(frozen=True)
class Recognizer:
    """``shows(served, observation)``: this run, stopped during ``served``, shows the deviation of ``clause`` that
    the SDKs record under ``ids`` (the Python SDK's ID and the Node SDK's, for one disagreement both have)."""

    ids: tuple[str, ...]
    clause: str
    shows: Callable[[Served, Observation], bool]


@dataclass(frozen=True)
class Active:
    """A recognizer whose deviation the SDK under check records, under ``id``."""

    id: str
    recognizer: Recognizer


def _stopped_on_repeated_done(served: Served, observation: Observation) -> bool:
    return observation.mode.eager and served.repeated_done and "invalid or duplicated" in (observation.error or "")


def _stopped_on_repeated_added(served: Served, observation: Observation) -> bool:
    return observation.mode.stream and served.repeated_added and observation.stopped


RECOGNIZERS: Final[tuple[Recognizer, ...]] = (
    Recognizer(("DEV-RN-004", "DEV-NODE-RN-004"), "RN-LOOP-003", _stopped_on_repeated_done),
    Recognizer(("DEV-RN-006", "DEV-NODE-RN-005"), "RN-LOOP-003", _stopped_on_repeated_added),
)


def active(deviations: Iterable[Deviation] | None = None) -> tuple[Active, ...]:
    """The recognizers whose deviation the SDK under check records (default: the installed Python SDK's)."""
    recorded = {
        (deviation.id, deviation.clause) for deviation in (load_deviations() if deviations is None else deviations)
    }
    return tuple(
        Active(ident, recognizer)
        for recognizer in RECOGNIZERS
        for ident in recognizer.ids
        if (ident, recognizer.clause) in recorded
    )


def explained(facts: Facts, observation: Observation, recognizers: Sequence[Active]) -> str | None:
    """The ID of the recorded deviation this run shows, or None."""
    if not observation.stopped or not 0 < observation.requests <= len(facts.cassette.exchanges):
        return None
    served = facts.served(observation.requests - 1, observation.mode.stream)
    for known in recognizers:
        if known.recognizer.shows(served, observation):
            return known.id
    return None


def set_aside(
    facts: Facts, observations: Sequence[Observation], recognizers: Sequence[Active]
) -> tuple[list[Observation], dict[str, str]]:
    """The runs to compare across modes, and the mode IDs set aside with the deviation each shows."""
    kept: list[Observation] = []
    excused: dict[str, str] = {}
    for observation in observations:
        deviation = explained(facts, observation, recognizers)
        if deviation is None:
            kept.append(observation)
        else:
            excused[observation.mode.id] = deviation
    return kept, excused


__all__ = ["RECOGNIZERS", "Active", "Recognizer", "active", "explained", "set_aside"]
