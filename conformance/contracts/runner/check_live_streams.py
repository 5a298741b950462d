"""Streams in the shape of real traffic, well-formed and faulty, through the whole mode matrix.

The ``live-*`` cassettes (``tools/cassettes/stream_sources.py``) carry every lifecycle event a Responses stream
has: created and in-progress announcements, items opened with ``output_item.added`` and grown by argument and
text deltas, reasoning and commentary items, and each terminal event. Each scenario states the outcome the
documents give and every mode must produce it; RN-LOOP-003 then compares the modes with each other.

spec/000 "Streaming and interrupted actions" (validation before dispatch, eager starts on completed items,
fixed messages for incomplete responses, receipts after a stream failure) and "Mix browser, computer, and
ordinary functions" (decoded arguments, malformed arguments never call the executor, retries keep their key).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import CapturedRun, Mode, Setup, input_summary, run
from conformance.rig.modes import active_modes

# The scenario of RN-ERR-001: an HTTP 500 on the second request, which stops the run with the generic message.
API_FAILURE = "http-error-second-request"


@dataclass(frozen=True)
class Scenario:
    """What the documents say a ``live-*`` cassette must lead to.

    ``calls`` run in every mode; ``eager_calls`` may also have run in eager modes, which start a completed item
    before a later failure is known (the documents allow it and require its receipts). ``requests`` is how many
    requests the run sends. ``final_text`` is the answer of a run that completes, None for a run that stops.
    ``stream_only`` marks faults a plain request never sees (it gets the whole response); plain modes then
    require ``plain_calls``/``plain_requests``/``plain_text`` instead.
    """

    cassette: str
    clause: str
    calls: tuple[str, ...]
    requests: int
    final_text: str | None
    eager_calls: tuple[str, ...] = ()
    names_incomplete: bool = False
    stream_only: bool = False
    plain_calls: tuple[str, ...] = ()
    plain_requests: int = 0
    plain_text: str | None = None
    max_retries: int = 0
    ledger_free_only: bool = False
    # False when the documents fix only how often calls run (duplicated events); the run's course is then
    # left to the cross-mode comparison (RN-LOOP-003).
    course_documented: bool = True


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("live-function-call", "RN-LOOP-001", ("c1",), 2, "The reference is c1."),
    Scenario("live-two-calls", "RN-LOOP-002", ("c1", "c2"), 2, "Both found."),
    Scenario("live-interleaved-calls", "RN-LOOP-002", ("c1", "c2"), 2, "Both found."),
    Scenario("live-arguments-truncated", "RN-STREAM-009", (), 1, None),
    Scenario("live-arguments-invalid", "RN-STREAM-009", (), 1, None),
    Scenario("live-arguments-not-object", "RN-STREAM-009", (), 1, None),
    Scenario("live-call-in-progress", "RN-STREAM-008", (), 1, None),
    Scenario("live-call-incomplete", "RN-STREAM-008", (), 1, None, names_incomplete=True),
    Scenario("live-response-incomplete", "RN-STREAM-010", (), 1, None, eager_calls=("c1",), names_incomplete=True),
    Scenario("live-response-failed", "RN-STREAM-010", (), 1, None, eager_calls=("c1",)),
    Scenario(
        "live-cut-mid-event",
        "RN-STREAM-011",
        (),
        1,
        None,
        stream_only=True,
        plain_calls=("c1",),
        plain_requests=2,
        plain_text="The reference is c1.",
    ),
    # Ledger runs: whether they retry at all is an open question (driverkit clauses --open-questions).
    Scenario(
        "live-http-error-then-retry",
        "RN-STREAM-012",
        ("c1",),
        3,
        "The reference is c1.",
        max_retries=1,
        ledger_free_only=True,
    ),
    Scenario("live-duplicated-events", "RN-STREAM-006", ("c1",), 2, "The reference is c1.", course_documented=False),
)
BY_NAME = {scenario.cassette: scenario for scenario in SCENARIOS}


def _modes_for(scenario: Scenario) -> tuple[Mode, ...]:
    return tuple(mode for mode in active_modes() if not (scenario.ledger_free_only and mode.ledger))


@cache
def _outcome(cassette: str, mode: Mode) -> CapturedRun:
    """One run per scenario and mode, shared by the per-mode check and the cross-mode comparison."""
    return run(cassette, Setup(max_retries=BY_NAME[cassette].max_retries), mode)


def _expected(scenario: Scenario, mode: Mode) -> tuple[tuple[str, ...], int, str | None]:
    if scenario.stream_only and not mode.stream:
        return scenario.plain_calls, scenario.plain_requests, scenario.plain_text
    return scenario.calls, scenario.requests, scenario.final_text


def _check(scenario: Scenario, mode: Mode, outcome: CapturedRun) -> None:
    clause = scenario.clause
    calls, requests, final_text = _expected(scenario, mode)
    ran = outcome.timeline.calls()
    allowed_extra = scenario.eager_calls if mode.eager else ()
    expect(
        ran == list(calls) or (allowed_extra and ran == [*calls, *allowed_extra]),
        clause,
        f"executor calls {ran}, the documents allow {list(calls)}"
        + (f" or {[*calls, *allowed_extra]} (eager)" if allowed_extra else ""),
    )
    expect(len(set(ran)) == len(ran), "RN-STREAM-006", f"a completed item ran twice: {ran}")
    if not scenario.course_documented:
        return
    expect(len(outcome.requests) == requests, clause, f"{len(outcome.requests)} request(s) sent, expected {requests}")
    if final_text is not None:
        expect(outcome.error is None, clause, f"the run must complete, it stopped: {outcome.error!r}")
        expect(outcome.response.output_text == final_text, clause, f"final text {outcome.response.output_text!r}")
        return
    expect(outcome.error is not None, clause, "the run must stop")
    attempted, completed = outcome.receipts
    expect(
        set(attempted) == set(ran) and set(completed) <= set(attempted),
        "RN-STREAM-005",
        f"receipts {outcome.receipts} do not match the calls that ran {ran}",
    )


def _cases(filter_incomplete: bool = False) -> list[object]:
    return [
        pytest.param(scenario, mode, id=f"{scenario.cassette}-{mode.id}")
        for scenario in SCENARIOS
        if not filter_incomplete or scenario.names_incomplete
        for mode in _modes_for(scenario)
    ]


@pytest.mark.clause("RN-LOOP-001", "RN-LOOP-002", "RN-STREAM-005", "RN-STREAM-006", "RN-STREAM-008")
@pytest.mark.clause("RN-STREAM-009", "RN-STREAM-010", "RN-STREAM-011", "RN-STREAM-012")
@pytest.mark.parametrize(("scenario", "mode"), _cases())
def test_live_stream_outcome(scenario: Scenario, mode: Mode) -> None:
    _check(scenario, mode, _outcome(scenario.cassette, mode))


def _generic_message(mode: Mode) -> str | None:
    """The message the SDK under check stops a run with after an API failure in ``mode``, the generic one.

    Observed rather than written down: the Python guide fixes its text (RN-ERR-001 pins it on the Python SDK), the
    Node declarations do not, and the Node SDK's ("ResponsesToolRunner stopped. Inspect attemptedCallIds and
    completedCallIds ...") even contains "complete", so only a comparison with it tells a named stop from it. Run
    afresh each time (a few milliseconds), so an SDK patched between checks is never compared with an old message.
    """
    error = run(API_FAILURE, Setup(), mode).error
    return None if error is None else str(error)


@pytest.mark.clause("RN-ERR-002")
@pytest.mark.parametrize(("scenario", "mode"), _cases(filter_incomplete=True))
def test_incomplete_response_message_names_it(scenario: Scenario, mode: Mode) -> None:
    outcome = _outcome(scenario.cassette, mode)
    expect(outcome.error is not None, "RN-ERR-002", "an incomplete response must stop the run")
    generic = _generic_message(mode)
    expect(generic is not None, "RN-ERR-002", f"an API failure ({API_FAILURE}) did not stop the run to compare with")
    message = str(outcome.error)
    expect(
        message != generic and "complete" in message.lower(),
        "RN-ERR-002",
        f"message {message!r} does not name the incomplete response (generic: {generic!r})",
    )


def _semantics(scenario: Scenario, mode: Mode) -> tuple[object, ...]:
    """What RN-LOOP-003 compares: the run's course with documented eager head starts set aside."""
    outcome = _outcome(scenario.cassette, mode)
    exempt = set(scenario.eager_calls) if mode.eager else set()
    ran = tuple(call for call in outcome.timeline.calls() if call not in exempt)
    text = outcome.response.output_text if outcome.response is not None else None
    later_inputs = tuple(tuple(input_summary(outcome.input_of(index))) for index in range(1, len(outcome.requests)))
    return (outcome.error is None, type(outcome.error).__name__, ran, len(outcome.requests), text, later_inputs)


def _comparison_id(scenario: Scenario) -> str:
    """The comparison's test ID: the cassette, prefixed with ``node-`` when it compares the Node SDK's modes (a
    Node deviation names only Node checks, and this check has no mode parameter to carry the SDK)."""
    return f"node-{scenario.cassette}" if active_modes()[0].flavour == "node" else scenario.cassette


@pytest.mark.clause("RN-LOOP-003")
@pytest.mark.node_sdk  # compares the modes of the SDK under check, the Node SDK's too
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[_comparison_id(scenario) for scenario in SCENARIOS])
def test_every_mode_behaves_the_same(scenario: Scenario) -> None:
    compared = [mode for mode in _modes_for(scenario) if mode.stream or not scenario.stream_only]
    reference = compared[0]
    expected = _semantics(scenario, reference)
    differing = [mode.id for mode in compared[1:] if _semantics(scenario, mode) != expected]
    expect(
        not differing,
        "RN-LOOP-003",
        f"{', '.join(differing)} differ from {reference.id}: "
        + "; ".join(f"{mode.id}: {_semantics(scenario, mode)}" for mode in compared if mode.id in differing)
        + f"; {reference.id}: {expected}",
    )


@pytest.mark.clause("RN-STREAM-007")
@pytest.mark.parametrize(
    "mode", [mode for mode in active_modes() if mode.stream and not mode.ledger], ids=lambda m: m.id
)
def test_on_event_sees_every_lifecycle_event(mode: Mode) -> None:
    seen: list[str] = []
    run("live-function-call", Setup(run_options={"on_event": lambda event: seen.append(event.type)}), mode).finished(
        "RN-STREAM-007"
    )
    for event_type in (
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ):
        expect(event_type in seen, "RN-STREAM-007", f"on_event never received {event_type}: {sorted(set(seen))}")
