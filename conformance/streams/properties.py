"""The documents' promises about a run, as checks over what a cassette serves and what one run showed.

Every rule names the clause it comes from (``conformance/clauses/runner.toml``); the documents are the oracle,
the SDK is what is judged. Two kinds of rule:

- Rules for every run, whatever else happens: no completed item runs twice (RN-STREAM-006); a call left in
  progress or incomplete, with malformed arguments or without a registration never runs (RN-STREAM-008/009,
  RN-LOOP-001); the calls of one response start in their original order, each before any later one
  (RN-LOOP-002); a non-eager streamed run starts a call only after its response completed (RN-STREAM-001), as
  does an eager one that declares a server tool (RN-SERVER-001), and an eager run never before the call's own
  ``output_item.done`` (RN-STREAM-002); outputs go back in call order with what the executor returned
  (RN-LOOP-001/002); a run that answers returns the last response, one without local calls (RN-LOOP-004); a
  ledger saves before and after each effect (RN-LEDGER-001/002/005/006); a stopped run's receipts name exactly
  the calls that ran (RN-STREAM-005).
- The course, where the documents fix it (:func:`expected_course`): which calls must run, how many requests go
  out and how the run ends, through retried HTTP failures (RN-STREAM-012), failed, incomplete or cut responses
  (RN-STREAM-010/011), unrunnable calls and server results (RN-STREAM-008, RN-SERVER-002) and API failures
  (RN-ERR-001). Where the documents leave the course open (repeated events, malformed arguments, a ledger run's
  retries: ``driverkit clauses --open-questions``) only the first kind applies, and the modes must still agree.

:func:`check_agreement` is RN-LOOP-003 for generated streams: every mode a stream applies to ends the same way,
runs the same calls and sends the same inputs, an eager run's documented head start aside.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal, cast

from conformance.cassettes import JSONObject
from conformance.members import CHECKPOINT_FIELDS
from conformance.rig import Mode
from conformance.streams.facts import RETRYABLE, Facts, Served
from conformance.streams.observation import Observation

# The documented default request limit (spec/002 "Handle failures"); generated runs never pass a max_steps.
MAX_STEPS: Final = 20
OUTPUT_TYPES: Final = frozenset({"function_call_output", "computer_call_output"})
# How a rule reports what it found: clause, rule name, detail.
_Fail = Callable[[str, str, str], None]


@dataclass(frozen=True)
class Violation:
    """One broken promise: the clause, the mode whose run broke it, a stable rule name and what was seen.
    ``reference`` is the mode an agreement violation compares with."""

    clause: str
    mode: str
    rule: str
    detail: str
    reference: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """What a shrunk cassette must still show: the same rule broken, on the same clause, in the same mode."""
        return self.clause, self.rule, self.mode

    def render(self) -> str:
        against = f" (compared with {self.reference})" if self.reference else ""
        return f"{self.clause} [{self.rule}] in {self.mode}{against}: {self.detail}"


@dataclass(frozen=True)
class Course:
    """What the documents say a run in one mode does with a cassette.

    ``required`` calls run, in order; an eager run may also have started the ``optional`` ones (its head start
    before a later failure). ``ends`` is ``"answer"`` (with the returned response's ID), ``"stop"``, or None when
    the documents leave the rest open, in which case ``requests`` is None too. ``clause`` says which promise fixes
    the ending; ``why`` says it in words.
    """

    required: tuple[str, ...]
    optional: frozenset[str]
    requests: int | None
    ends: Literal["answer", "stop"] | None
    answer: str | None
    clause: str
    why: str
    # The course goes through a retried HTTP failure (RN-STREAM-012: the run goes on as if it had not failed).
    retried: bool = False


def _stop(required: list[str], requests: int, clause: str, why: str, optional: Sequence[str] = ()) -> Course:
    return Course(tuple(required), frozenset(optional), requests, "stop", None, clause, why)


def _open(required: list[str], why: str) -> Course:
    return Course(tuple(required), frozenset(), None, None, None, "RN-LOOP-003", why)


def expected_course(facts: Facts, mode: Mode) -> Course:
    """Serve the cassette to a documented runner in ``mode``, as far as the documents determine the course."""
    retried: list[bool] = []
    course = _course(facts, mode, retried)
    return replace(course, retried=bool(retried))


def _course(facts: Facts, mode: Mode, retried: list[bool]) -> Course:
    exchanges = len(facts.cassette.exchanges)
    index = requests = 0
    required: list[str] = []
    for step in range(MAX_STEPS):
        attempts = 0
        while True:
            requests += 1
            if index >= exchanges:
                return _stop(required, requests, "RN-ERR-001", f"request {requests - 1} gets an API error (no answer)")
            served = facts.served(index, mode.stream)
            index += 1
            if served.http_status is None:
                break
            retryable = served.http_status in RETRYABLE and attempts < facts.max_retries
            if retryable and facts.mcp:
                why = "a request declaring MCP tools is not retried"
                return _stop(required, requests, "RN-MCP-005", why)
            if retryable and mode.ledger:
                return _open(required, "whether a ledger run retries is open (OQ-001)")
            if retryable:
                attempts += 1
                retried.append(True)
                continue
            return _stop(required, requests, "RN-ERR-001", f"HTTP {served.http_status} is an API failure")
        course = _turn(facts, mode, served, step, required, requests)
        if course is not None:
            return course
        required += served.runnable
    return _stop(required, requests, "RN-STEPS-002", "the default request limit")


def _turn(facts: Facts, mode: Mode, served: Served, step: int, required: list[str], requests: int) -> Course | None:
    """The course's end at this response, or None when the run goes on to the next request."""
    head = served.head_start(mode.eager and not facts.waits_for_completion)
    if mode.stream and served.irregular:
        return _open(required, f"response {served.index} repeats or re-indexes events (OQ-003)")
    if served.cut:
        clause = "RN-STREAM-011" if served.cut_inside_event else "RN-STREAM-005"
        return _stop(required, requests, clause, f"the stream of response {served.index} ends early", head)
    if served.status != "completed":
        why = f"response {served.index} ends {served.status}"
        return _stop(required, requests, "RN-STREAM-010", why, head)
    problem = served.first_problem()
    if problem is not None:
        if problem[1] == "RN-STREAM-009":
            return _open(required, f"what follows malformed arguments in response {served.index} is open (OQ-002)")
        return _stop(required, requests, problem[1], f"response {served.index} holds an item that may not run", head)
    if served.calls:
        if step == MAX_STEPS - 1:
            return _stop(required, requests, "RN-STEPS-001", "the last allowed request starts no effect")
        return None
    if served.answer_only:
        return Course(tuple(required), frozenset(), requests, "answer", served.response_id, "RN-LOOP-004", "an answer")
    return _open(required, f"response {served.index} has no call and no plain answer")


# ------------------------------------------------------------------------------------------ rules for every run


def _owner(facts: Facts, streamed: bool) -> dict[str, Served]:
    """Each call ID and the exchange (as this delivery serves it) whose response carries it."""
    owners: dict[str, Served] = {}
    for index in range(len(facts.cassette.exchanges)):
        served = facts.served(index, streamed)
        for call_id in served.call_ids:
            owners.setdefault(call_id, served)
    return owners


def check_run(facts: Facts, observation: Observation) -> list[Violation]:
    """Every documented rule this run breaks (the first of each kind)."""
    found: list[Violation] = []
    mode = observation.mode

    def fail(clause: str, rule: str, detail: str) -> None:
        if not any(violation.rule == rule for violation in found):
            found.append(Violation(clause, mode.id, rule, detail))

    ran = observation.executed()
    owners = _owner(facts, mode.stream)
    twice = sorted(call_id for call_id, count in Counter(ran).items() if count > 1)
    if twice:
        fail("RN-STREAM-006", "ran-twice", f"calls ran more than once: {twice}; all calls run: {ran}")
    for call_id in dict.fromkeys(ran):
        served = owners.get(call_id)
        call = next((call for call in served.calls if call.call_id == call_id), None) if served else None
        if served is None or call is None:
            fail("RN-LOOP-001", "unknown-call", f"{call_id} ran but no response issued it")
            continue
        if call.problem is not None:
            fail(call.problem, "may-not-run", f"{call_id} ran although its item is {call.status}, {_shape(call)}")
        _check_timing(facts, observation, served, call_id, fail)
    _check_order(facts, observation, fail)
    _check_outputs(facts, observation, fail)
    _check_answer(facts, observation, fail)
    if mode.ledger and "saves" in observation.sees:
        _check_ledger(observation, fail)
    _check_receipts(observation, fail)
    _check_course(expected_course(facts, mode), observation, fail)
    return found


def _shape(call: object) -> str:
    well_formed = getattr(call, "well_formed", True)
    registered = getattr(call, "registered", True)
    return ", ".join(
        [
            "arguments well formed" if well_formed else "arguments malformed",
            "registered" if registered else "not registered",
        ]
    )


def _check_timing(facts: Facts, observation: Observation, served: Served, call_id: str, fail: _Fail) -> None:
    mode = observation.mode
    if not mode.stream or "events" not in observation.sees:
        return
    start, end = observation.response_span(served.index)
    at = observation.call_position(call_id)
    if start < 0 or not start < at:
        return
    span = observation.entries[start:end]
    completed = next((start + offset for offset, entry in enumerate(span) if entry == "event:response.completed"), -1)
    if not mode.eager or facts.waits_for_completion:
        clause = "RN-SERVER-001" if mode.eager else "RN-STREAM-001"
        if completed < 0 or at < completed:
            fail(clause, "before-completion", f"{call_id} started before response {served.index} completed")
        return
    done = observation.position(f"item:{call_id}")
    if done < 0 or at < done:
        fail("RN-STREAM-002", "before-its-item", f"{call_id} started before its output_item.done event arrived")


def _check_order(facts: Facts, observation: Observation, fail: _Fail) -> None:
    ran = list(dict.fromkeys(observation.executed()))
    for index in range(len(facts.cassette.exchanges)):
        served = facts.served(index, observation.mode.stream)
        runnable = served.runnable
        mine = [call_id for call_id in ran if call_id in served.call_ids]
        if mine and mine != list(runnable[: len(mine)]):
            fail(
                "RN-LOOP-002",
                "out-of-order",
                f"response {index}'s calls ran as {mine}; in their original order they are {list(runnable)}",
            )


def _summary(item: JSONObject) -> str:
    kind = str(item.get("type", "message"))
    if kind == "message" or "role" in item:
        return f"{item.get('role', 'assistant')}:{item.get('id', '')}"
    output = item.get("output")
    shown = f":{output}" if isinstance(output, str) and kind in OUTPUT_TYPES else ""
    return f"{kind}:{item.get('call_id') or item.get('id', '')}{shown}"


def later_inputs(observation: Observation) -> tuple[tuple[str, ...], ...]:
    """One line per input item of every request after the first: what the run sent back."""
    return tuple(
        tuple(
            _summary(cast(JSONObject, item))
            for item in cast(list[object], body.get("input") or [])
            if isinstance(item, dict)
        )
        for body in observation.bodies[1:]
    )


def _check_outputs(facts: Facts, observation: Observation, fail: _Fail) -> None:
    ran = list(dict.fromkeys(observation.executed()))
    for index, body in enumerate(observation.bodies):
        if index == 0:
            continue
        served = facts.served(index - 1, observation.mode.stream)
        mine = [call_id for call_id in ran if call_id in served.call_ids]
        if not mine or served.http_status is not None:
            continue
        items = [
            cast(JSONObject, item) for item in cast(list[object], body.get("input") or []) if isinstance(item, dict)
        ]
        outputs = [item for item in items if item.get("type") in OUTPUT_TYPES and item.get("call_id") in mine]
        sent = [str(item.get("call_id")) for item in outputs]
        if sorted(sent) != sorted(mine):
            fail(
                "RN-LOOP-001",
                "output-missing",
                f"request {index} sends outputs for {sent}, the calls that ran are {mine}",
            )
            continue
        if sent != mine:
            fail(
                "RN-LOOP-002", "outputs-out-of-order", f"request {index} sends outputs in the order {sent}, not {mine}"
            )
        names = {call.call_id: call.name for call in served.calls if call.kind == "function"}
        for item in outputs:
            name = names.get(str(item.get("call_id")))
            expected = observation.replies.get(name) if name else None
            if expected is not None and item.get("output") != expected:
                sent_output = f"request {index} sends {item.get('output')!r} for {item.get('call_id')}"
                fail("RN-LOOP-001", "output-changed", f"{sent_output}, {name} returned {expected!r}")


def _check_answer(facts: Facts, observation: Observation, fail: _Fail) -> None:
    if observation.stopped or not observation.bodies or "response" not in observation.sees:
        return
    last = (
        facts.served(observation.requests - 1, observation.mode.stream)
        if observation.requests <= len(facts.cassette.exchanges)
        else None
    )
    if last is None or observation.response_id != last.response_id:
        fail(
            "RN-LOOP-004",
            "answer",
            f"the run returned {observation.response_id}, the last response served was "
            f"{None if last is None else last.response_id}",
        )
    elif last.runnable:
        fail(
            "RN-LOOP-004",
            "answer-with-calls",
            f"the run returned {last.response_id} without running its calls {list(last.runnable)}",
        )


def _check_ledger(observation: Observation, fail: _Fail) -> None:
    checkpoints = observation.checkpoints
    for number, checkpoint in enumerate(checkpoints):
        if set(checkpoint) != CHECKPOINT_FIELDS:
            fail("RN-LEDGER-001", "checkpoint-fields", f"checkpoint {number} has fields {sorted(checkpoint)}")
            return
    entries = observation.entries
    for call_id in dict.fromkeys(observation.executed()):
        at = observation.call_position(call_id)
        before = [int(entry[5:]) for entry in entries[:at] if entry.startswith("save:")]
        if not before:
            fail("RN-LEDGER-002", "no-save-before", f"no checkpoint was saved before {call_id} ran")
            continue
        saved = checkpoints[before[-1]] if before[-1] < len(checkpoints) else {}
        attempted = cast(list[object], saved.get("attempted_call_ids") or [])
        returned = cast(list[object], saved.get("returned_call_ids") or [])
        if call_id not in attempted or call_id in returned:
            fail(
                "RN-LEDGER-005",
                "save-before",
                f"the save just before {call_id} ran lists attempted {attempted}, returned {returned}",
            )
        finished = next(
            (
                position
                for position, entry in enumerate(entries)
                if position > at and entry.startswith(("done:", "failed:")) and entry.rsplit(":", 1)[-1] == call_id
            ),
            at,
        )
        following = next(
            (
                position
                for position, entry in enumerate(entries)
                if position > finished and entry.startswith(("request:", "call:"))
            ),
            None,
        )
        if following is None:
            continue  # the run ended with this effect; what it saved last is the stop's business
        after = [int(entry[5:]) for entry in entries[finished:following] if entry.startswith("save:")]
        if not after:
            fail(
                "RN-LEDGER-002",
                "no-save-after",
                f"no checkpoint was saved after {call_id} ran and before the next step",
            )
            continue
        saved = checkpoints[after[0]] if after[0] < len(checkpoints) else {}
        outputs = [
            cast(JSONObject, output).get("call_id")
            for output in cast(list[object], saved.get("returned_outputs") or [])
            if isinstance(output, dict)
        ]
        history = [
            cast(JSONObject, item).get("call_id")
            for item in cast(list[object], saved.get("history") or [])
            if isinstance(item, dict) and cast(JSONObject, item).get("type") in OUTPUT_TYPES
        ]
        if call_id not in cast(list[object], saved.get("returned_call_ids") or []) or call_id not in [
            *outputs,
            *history,
        ]:
            fail("RN-LEDGER-006", "save-after", f"the save just after {call_id} ran does not record its output")


def _check_receipts(observation: Observation, fail: _Fail) -> None:
    if observation.attempted is None or observation.completed is None:
        return
    ran = set(observation.executed())
    attempted, completed = set(observation.attempted), set(observation.completed)
    if attempted != ran or not completed <= attempted:
        fail(
            "RN-STREAM-005",
            "receipts",
            f"receipts attempted {list(observation.attempted)}, completed {list(observation.completed)}; "
            f"the calls that ran: {observation.executed()}",
        )


def _check_course(course: Course, observation: Observation, fail: _Fail) -> None:
    if course.ends is None:
        return
    mode = observation.mode
    ran = observation.executed()
    optional = course.optional if mode.eager else frozenset()
    core = [call_id for call_id in ran if call_id not in optional or call_id in course.required]
    missing = [call_id for call_id in course.required if call_id not in ran]
    extra = [call_id for call_id in core if call_id not in course.required]
    context = f"({course.why}; {observation.summary()})"
    if course.retried and course.requests is not None and observation.requests < course.requests:
        detail = f"{observation.requests} request(s) sent; retrying the failed request the run sends {course.requests}"
        fail("RN-STREAM-012", "course-retry", f"{detail} {context}")
    elif missing:
        fail("RN-LOOP-001", "course-missing-call", f"completed calls {missing} never ran {context}")
    elif extra:
        fail(
            course.clause, "course-extra-call", f"calls {extra} ran although the documents stop the run first {context}"
        )
    elif course.requests is not None and observation.requests != course.requests:
        clause = "RN-LOOP-001" if observation.requests < course.requests else course.clause
        if observation.requests < course.requests and course.retried:
            clause = "RN-STREAM-012"
        fail(
            clause,
            "course-requests",
            f"{observation.requests} request(s) sent, the documents give {course.requests} {context}",
        )
    elif course.ends == "stop" and not observation.stopped:
        fail(course.clause, "course-ending", f"the run answered; the documents stop it {context}")
    elif course.ends == "answer" and observation.stopped:
        fail("RN-LOOP-004", "course-ending", f"the run stopped; the documents end it with {course.answer} {context}")


# ------------------------------------------------------------------------------------------ agreement


def semantics(facts: Facts, observation: Observation, *, across_sdks: bool = False) -> tuple[object, ...]:
    """What RN-LOOP-003 compares: the run's course with an eager run's head start set aside (the calls of the
    response during which it stopped). ``across_sdks`` leaves out the error's type, which each SDK names its way."""
    exempt: set[str] = set()
    if observation.stopped and observation.mode.eager and 0 < observation.requests <= len(facts.cassette.exchanges):
        exempt = set(facts.served(observation.requests - 1, True).call_ids)
    ran = tuple(call_id for call_id in observation.executed() if call_id not in exempt)
    error = None if across_sdks else observation.error_type
    return (observation.stopped, error, ran, observation.requests, observation.response_id, later_inputs(observation))


def agreement_groups(facts: Facts, modes: Sequence[Mode]) -> list[list[Mode]]:
    """Modes that must agree with each other on this cassette: plain and streamed apart when a fault reaches only
    a stream, ledger modes apart when a retry is involved (whether a ledger run retries is open, OQ-001)."""
    retries = facts.http_failures and facts.max_retries > 0 and not facts.mcp
    groups: dict[tuple[bool, bool], list[Mode]] = {}
    for mode in modes:
        key = (mode.stream and facts.stream_only, mode.ledger and retries)
        groups.setdefault(key, []).append(mode)
    return [group for group in groups.values() if len(group) > 1]


def check_agreement(facts: Facts, observations: Sequence[Observation]) -> list[Violation]:
    """RN-LOOP-003 over the runs of one cassette: each mode that ends differently from its group's first."""
    by_mode = {observation.mode: observation for observation in observations}
    found: list[Violation] = []
    for group in agreement_groups(facts, list(by_mode)):
        reference = by_mode[group[0]]
        expected = semantics(facts, reference)
        for mode in group[1:]:
            observation = by_mode[mode]
            if semantics(facts, observation) != expected:
                found.append(
                    Violation(
                        "RN-LOOP-003",
                        mode.id,
                        "modes-disagree",
                        f"{observation.summary()} | {reference.summary()}",
                        reference=reference.mode.id,
                    )
                )
    return found


def check_sdk_agreement(
    facts: Facts, observations: Sequence[Observation], references: Sequence[Observation]
) -> list[Violation]:
    """Each Node SDK run against the Python SDK's run of the same delivery and ledger (the async runner, the one
    the Node runner mirrors): the documents describe one runner behaviour for both SDKs, so where either is not
    set aside as a known deviation they must end the same way, run the same calls and send the same inputs."""
    python = {(run.mode.delivery, run.mode.ledger): run for run in references if run.mode.flavour == "async"}
    found: list[Violation] = []
    for observation in observations:
        reference = python.get((observation.mode.delivery, observation.mode.ledger))
        if observation.mode.flavour != "node" or reference is None:
            continue
        if semantics(facts, observation, across_sdks=True) != semantics(facts, reference, across_sdks=True):
            found.append(
                Violation(
                    "RN-LOOP-003",
                    observation.mode.id,
                    "sdks-disagree",
                    f"{observation.summary()} | the Python SDK's {reference.summary()}",
                    reference=reference.mode.id,
                )
            )
    return found


__all__ = [
    "CHECKPOINT_FIELDS",
    "Course",
    "Violation",
    "agreement_groups",
    "check_agreement",
    "check_run",
    "check_sdk_agreement",
    "expected_course",
    "later_inputs",
    "semantics",
]
