"""What a Decisions observation may carry, what is refused, and that the runner sends its own snapshot.

spec/000 "Selecting guarded actions with Decisions": observe returns text or an iterable of ``input_text`` and
inline ``input_image`` parts; external image URLs and file IDs are not supported; the runner owns a snapshot
before passing the observation on; each request carries only the task and the current observation.
The documents give no size limit and no rule for empty text: see ``driverkit clauses --open-questions``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conformance.assertions import expect, not_checked
from conformance.flavours import NODE, Flavour
from conformance.probes import PIXEL_DATA_URL
from conformance.rig.decisions import DecisionsRun, flavours, run_decisions, shared_observation


def _sent_observation(outcome: DecisionsRun, request: int = 0) -> object:
    body: dict[str, Any] = outcome.requests[request].body or {}
    return body["input"][-1]["content"]


TEXT = {"type": "input_text", "text": "Review queue: 3 documents"}
INLINE = {"type": "input_image", "image_url": PIXEL_DATA_URL}

ACCEPTED: dict[str, Callable[[], object]] = {
    "text": lambda: "Review queue: 3 documents",
    "text-part": lambda: [TEXT],
    "inline-image": lambda: [INLINE],
    "text-and-image": lambda: [TEXT, {**INLINE, "detail": "low"}],
    "every-detail": lambda: [{**INLINE, "detail": detail} for detail in ("low", "high", "auto", "original")],
}


@pytest.mark.clause("RN-DEC-010")
@pytest.mark.parametrize("form", sorted(ACCEPTED))
@pytest.mark.parametrize("flavour", flavours())
def test_documented_observation_forms_are_sent_as_given(flavour: Flavour, form: str) -> None:
    observation = ACCEPTED[form]()
    outcome = run_decisions("decisions-act-then-done", flavour, observation=lambda: observation)
    expect(outcome.error is None, "RN-DEC-010", f"a {form} observation was refused: {outcome.error!r}")
    expect(
        _sent_observation(outcome) == observation,
        "RN-DEC-010",
        f"the {form} observation was sent as {_sent_observation(outcome)!r}",
    )


def _one_shot() -> Iterator[dict[str, Any]]:
    yield dict(TEXT)
    yield dict(INLINE)


@pytest.mark.clause("RN-DEC-010")
@pytest.mark.parametrize("flavour", flavours())
def test_one_shot_iterable_is_sent_whole(flavour: Flavour) -> None:
    """A generator is a documented form; the runner must read it once and send every part."""
    if flavour == NODE:
        not_checked(
            "on the Node SDK: its DecisionObservation is a string or an array of parts; it declares no one-shot "
            "iterable form to check"
        )
    outcome = run_decisions("decisions-act-then-done", flavour, observation=_one_shot)
    expect(outcome.error is None, "RN-DEC-010", f"a generated observation was refused: {outcome.error!r}")
    expect(_sent_observation(outcome) == [TEXT, INLINE], "RN-DEC-010", f"sent {_sent_observation(outcome)!r}")


REFUSED: dict[str, object] = {
    "external-https-image": [{"type": "input_image", "image_url": "https://images.example/page.png"}],
    "external-http-image": [TEXT, {"type": "input_image", "image_url": "http://images.example/page.png"}],
    "file-id-image": [{"type": "input_image", "file_id": "file-abc123"}],
    "file-part": [{"type": "input_file", "file_id": "file-abc123"}],
    "unknown-detail": [{**INLINE, "detail": "ultra"}],
    "text-not-string": [{"type": "input_text", "text": 42}],
    "not-a-part": ["Review queue"],
}


@pytest.mark.clause("RN-DEC-011")
@pytest.mark.parametrize("form", sorted(REFUSED))
@pytest.mark.parametrize("flavour", flavours())
def test_unsupported_observation_parts_are_never_sent(flavour: Flavour, form: str) -> None:
    observation = REFUSED[form]
    outcome = run_decisions("decisions-act-then-done", flavour, observation=lambda: observation)
    expect(
        outcome.error is not None and outcome.requests == [] and outcome.executed == [],
        "RN-DEC-011",
        f"a {form} observation was not refused before any request: {len(outcome.requests)} request(s), "
        f"executed {outcome.executed}, {outcome.result or outcome.error!r}",
    )


@pytest.mark.clause("RN-DEC-012")
@pytest.mark.parametrize("flavour", flavours())
def test_runner_sends_its_own_snapshot(flavour: Flavour) -> None:
    """The application reuses its observation object and the candidates callback edits what it receives;
    the request must still carry what observe returned."""
    application = shared_observation(flavour, [dict(TEXT)])
    outcome = run_decisions(
        "decisions-act-then-done",
        flavour,
        observation=application.observe,
        application_candidates=application.candidates,
    )
    expect(bool(outcome.requests), "RN-DEC-012", f"no request was sent: {outcome.result or outcome.error!r}")
    first = _sent_observation(outcome) if outcome.requests else None
    expect(first == [TEXT], "RN-DEC-012", f"the first request carried {first!r}, not what observe returned")
