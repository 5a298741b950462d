"""Runner diagnostics: the Decisions trace before dispatch, the fields every event has, what no event may carry,
usage, and callbacks that fail - for the Decisions runner and the Responses runner.

spec/000 "Streaming and interrupted actions" (the ``on_diagnostic`` paragraph): a ``ToolDiagnostic`` has
``api``, ``stage``, ``reason``, ``duration_ms``, ``call_id``, ``member`` and ``usage``; it leaves out raw
arguments, page text, URLs, screenshots, credentials and exception text; usage holds the native token counts of
a parsed response, else None; a failing callback cannot change approval or results; Decisions reports the
selected candidate ID before dispatch, so a failing action still leaves a trace. spec/000 "Selecting guarded
actions with Decisions" for the Decisions run itself.

Private data is planted as distinctive canary strings in every private place a run touches (task, arguments,
function result, page text, tab URL and title, observation text, screenshot, exception message, API key); each
check first proves the canary reached the SDK, then that no diagnostic repeats it.
"""

from __future__ import annotations

import asyncio
import json
import math
from dataclasses import replace
from typing import Any

import pytest
from openai.lib.decisions_tool_runner import DecisionsToolRunnerError
from openai.lib.responses_tool_runner import ToolRunnerError

from conformance.assertions import expect
from conformance.contracts.runner._scenario import (
    PRIVATE_API_ERROR,
    PRIVATE_ARGUMENT,
    PRIVATE_CLICK_TARGET,
    CapturedRun,
    Function,
    Mode,
    Setup,
    modes,
    run,
)
from conformance.fake_responses import FAKE_API_KEY
from conformance.flavours import Flavour
from conformance.members import COMPUTER_METHODS
from conformance.probes import PIXEL_DATA_URL
from conformance.rig.decisions import Action, DecisionsRun, flavours, run_decisions

FIELDS = {"api", "stage", "reason", "duration_ms", "call_id", "member", "usage"}
USAGE_FIELDS = {"input_tokens", "output_tokens", "total_tokens"}

TASK = "task-canary-91fa: reconcile the invoice"
FUNCTION_RESULT = "result-canary-3d07"
PAGE_TEXT = "page-canary-55c2 opening hours"
TAB_URL = "https://url-canary-e16a.example/private/account"
TAB_TITLE = "title-canary-0b7d"
OBSERVATION_TEXT = "observation-canary-a4e3 see https://obs-url-canary-77f1.example/rules"
FAILURE_TEXT = "exception-canary-c8b2: card 4111 declined"
DRIVER_FAILURE_TEXT = "driver-exception-canary-19de: session cookie expired"
VERIFY_FAILURE_TEXT = "verify-exception-canary-f03c: ledger total mismatch"
# Screenshots travel as data URLs; neither the scheme nor the encoded pixels may appear in a diagnostic.
SCREENSHOT_MARKERS = ("data:image", PIXEL_DATA_URL.split(",", 1)[1][:24])

RESPONSES_CANARIES = (
    TASK,
    PRIVATE_ARGUMENT,
    PRIVATE_CLICK_TARGET,
    FUNCTION_RESULT,
    PAGE_TEXT,
    TAB_URL,
    "url-canary-e16a",
    TAB_TITLE,
    FAILURE_TEXT,
    "exception-canary-c8b2",
    DRIVER_FAILURE_TEXT,
    "driver-exception-canary-19de",
    FAKE_API_KEY,
    *SCREENSHOT_MARKERS,
)
DECISIONS_CANARIES = (
    TASK,
    OBSERVATION_TEXT,
    "observation-canary-a4e3",
    "obs-url-canary-77f1",
    FAILURE_TEXT,
    "exception-canary-c8b2",
    VERIFY_FAILURE_TEXT,
    "verify-exception-canary-f03c",
    FAKE_API_KEY,
    *SCREENSHOT_MARKERS,
)

BROWSER_MEMBERS = ("get_page_text", "screenshot", "click")
PRIVATE_SETUP = Setup(
    functions=(Function("lookup", reply=FUNCTION_RESULT), Function("explode", reply=RuntimeError(FAILURE_TEXT))),
    browser=BROWSER_MEMBERS,
    browser_replies={"get_page_text": PAGE_TEXT},
    browser_state={"tabs": [{"id": "tab-1", "title": TAB_TITLE, "url": TAB_URL, "active": True}]},
    params={"model": "gpt-test", "input": TASK},
)
PRIVATE_CALL_IDS = {"c1", "c2", "c3", "c4", "c5"}
PRIVATE_MEMBERS = {"lookup", "explode"} | set(BROWSER_MEMBERS) | {f"browser_{name}" for name in BROWSER_MEMBERS}


class DiagnosticObserverFailure(RuntimeError):
    """Raised by a deliberately failing on_diagnostic callback."""


def _observation() -> list[dict[str, str]]:
    return [
        {"type": "input_text", "text": OBSERVATION_TEXT},
        {"type": "input_image", "image_url": PIXEL_DATA_URL},
    ]


def _leaks(diagnostics: list[dict[str, Any]], canaries: tuple[str, ...]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (canary, diagnostic)
        for diagnostic in diagnostics
        for canary in canaries
        if canary in json.dumps(diagnostic, default=repr)
    ]


def _shape_problems(
    diagnostics: list[dict[str, Any]], call_ids: set[str], members: set[str]
) -> list[tuple[str, dict[str, Any]]]:
    """Every way a diagnostic departs from the documented event: exact fields and plausible values."""
    problems: list[tuple[str, dict[str, Any]]] = []
    for diagnostic in diagnostics:
        if set(diagnostic) != FIELDS:
            problems.append((f"fields {sorted(diagnostic)}", diagnostic))
            continue
        for name in ("api", "stage", "reason"):
            if not isinstance(diagnostic[name], str) or not diagnostic[name]:
                problems.append((f"{name} is not a nonempty string", diagnostic))
        duration = diagnostic["duration_ms"]
        if isinstance(duration, bool) or not isinstance(duration, (int, float)) or not math.isfinite(duration):
            problems.append(("duration_ms is not a finite number", diagnostic))
        elif duration < 0:
            problems.append(("duration_ms is negative", diagnostic))
        # IDs and member names are the only caller- or model-chosen text an event may hold.
        if diagnostic["call_id"] is not None and diagnostic["call_id"] not in call_ids:
            problems.append(("call_id names no call or candidate of the run", diagnostic))
        if diagnostic["member"] is not None and diagnostic["member"] not in members:
            problems.append(("member names no registered tool", diagnostic))
        usage = diagnostic["usage"]
        if usage is not None and (
            not isinstance(usage, dict)
            or set(usage) != USAGE_FIELDS
            or not all(type(value) is int and value >= 0 for value in usage.values())
        ):
            problems.append(("usage is neither None nor the three token counts", diagnostic))
    return problems


def _run_private(mode: Mode, **overrides: Any) -> CapturedRun:
    return run("diagnostics-private-data", PRIVATE_SETUP, mode, **overrides)


def _expect_private_run_reached_sdk(outcome: CapturedRun, clause: str, *, driver_raises: bool = False) -> None:
    """The canaries were really handed to the SDK, so their absence from diagnostics means something.

    When the click's driver raises, whether the run goes on to the second turn is another clause's business
    (with a ledger 3.57.0 stops there, DEV-RN-002), so only the first turn's calls are required then.
    """
    calls = [entry for entry in outcome.timeline.entries if entry.startswith("call:")]
    first_turn = [
        f"call:lookup:{PRIVATE_ARGUMENT}",
        "call:browser_get_page_text:",
        "call:browser_screenshot:",
        f"call:browser_click:{PRIVATE_CLICK_TARGET}",
    ]
    expected = [*first_turn, "call:explode:c5"]
    reached = calls[:4] == first_turn if driver_raises else calls == expected
    expect(reached, clause, f"calls {calls}, expected {expected}")
    expect(isinstance(outcome.error, ToolRunnerError), clause, f"the run did not stop on a failure: {outcome.error!r}")
    if len(outcome.bodies) > 1:
        second = json.dumps(outcome.bodies[1])
        expect(
            FUNCTION_RESULT in second and PAGE_TEXT in second and TASK in second,
            clause,
            "the second request lacks the planted result, page text or task",
        )


def _run_decisions_private(flavour: Flavour, **options: Any) -> DecisionsRun:
    return run_decisions(
        "decisions-act-then-done",
        flavour,
        actions=(Action("review", failure=RuntimeError(FAILURE_TEXT)),),
        observation=_observation,
        task=TASK,
        **options,
    )


# ------------------------------------------------------------------------------------------ Decisions trace


@pytest.mark.clause("RN-DIAG-002")
@pytest.mark.parametrize("fails", [False, True], ids=["executor-returns", "executor-raises"])
@pytest.mark.parametrize("flavour", flavours())
def test_decisions_reports_the_selected_id_before_dispatch(flavour: Flavour, fails: bool) -> None:
    failure = RuntimeError(FAILURE_TEXT) if fails else None
    outcome = run_decisions("decisions-act-then-done", flavour, actions=(Action("review", failure=failure),))
    expect(outcome.executed == ["review"], "RN-DIAG-002", f"executors run: {outcome.executed}")
    if fails:
        expect(
            isinstance(outcome.error, DecisionsToolRunnerError),
            "RN-DIAG-002",
            f"a raising executor did not stop the run: {outcome.result or outcome.error!r}",
        )
    dispatched = outcome.trace.index("execute:review")
    before = [entry for entry in outcome.trace[:dispatched] if entry.endswith(":review")]
    expect(
        bool(before),
        "RN-DIAG-002",
        f"no diagnostic named the selected candidate before its executor ran: {outcome.trace}",
    )


# ------------------------------------------------------------------------------------------ fields


@pytest.mark.clause("RN-DIAG-003")
@pytest.mark.parametrize("mode", modes())
def test_responses_diagnostics_have_the_documented_fields(mode: Mode) -> None:
    outcome = _run_private(mode)
    _expect_private_run_reached_sdk(outcome, "RN-DIAG-003")
    expect(bool(outcome.diagnostics), "RN-DIAG-003", "the run reported no diagnostics")
    problems = _shape_problems(outcome.diagnostics, PRIVATE_CALL_IDS, PRIVATE_MEMBERS)
    expect(not problems, "RN-DIAG-003", f"malformed diagnostics: {problems}")


@pytest.mark.clause("RN-DIAG-003")
@pytest.mark.parametrize("flavour", flavours())
def test_decisions_diagnostics_have_the_documented_fields(flavour: Flavour) -> None:
    outcome = run_decisions("decisions-act-then-done", flavour, verify=lambda observation: True).finished("RN-DIAG-003")
    expect(bool(outcome.diagnostics), "RN-DIAG-003", "the run reported no diagnostics")
    problems = _shape_problems(outcome.diagnostics, {"review", "done"}, set())
    expect(not problems, "RN-DIAG-003", f"malformed diagnostics: {problems}")


@pytest.mark.clause("RN-DIAG-003", "RN-DIAG-004")
@pytest.mark.parametrize("mode", modes())
def test_computer_diagnostics_are_well_formed_and_carry_no_screenshot(mode: Mode) -> None:
    setup = Setup(computer=True, functions=(Function("lookup", reply=FUNCTION_RESULT),)).with_params(input=TASK)
    outcome = run("computer-then-function", setup, mode).finished("RN-DIAG-003")
    screenshot_sent = json.dumps(outcome.bodies[1])
    expect(PIXEL_DATA_URL in screenshot_sent, "RN-DIAG-004", "the computer screenshot never reached the request")
    problems = _shape_problems(outcome.diagnostics, {"c1", "c2"}, {"lookup", "computer", *COMPUTER_METHODS})
    expect(not problems, "RN-DIAG-003", f"malformed diagnostics: {problems}")
    leaks = _leaks(outcome.diagnostics, (TASK, FUNCTION_RESULT, FAKE_API_KEY, *SCREENSHOT_MARKERS))
    expect(not leaks, "RN-DIAG-004", f"private data in diagnostics: {leaks}")


# ------------------------------------------------------------------------------------------ exclusions


@pytest.mark.clause("RN-DIAG-004")
@pytest.mark.parametrize("driver", ["driver-succeeds", "driver-raises"])
@pytest.mark.parametrize("mode", modes())
def test_responses_diagnostics_carry_no_private_data(mode: Mode, driver: str) -> None:
    setup = PRIVATE_SETUP
    if driver == "driver-raises":
        # A plain driver exception fails that browser call only; the run goes on to the raising function.
        replies = {**PRIVATE_SETUP.browser_replies, "click": RuntimeError(DRIVER_FAILURE_TEXT)}
        setup = replace(PRIVATE_SETUP, browser_replies=replies)
    outcome = run("diagnostics-private-data", setup, mode)
    _expect_private_run_reached_sdk(outcome, "RN-DIAG-004", driver_raises=driver == "driver-raises")
    leaks = _leaks(outcome.diagnostics, RESPONSES_CANARIES)
    expect(not leaks, "RN-DIAG-004", f"private data in diagnostics: {leaks}")


@pytest.mark.clause("RN-DIAG-004")
@pytest.mark.parametrize("flavour", flavours())
def test_decisions_verifier_failure_text_stays_out_of_diagnostics(flavour: Flavour) -> None:
    def verify(observation: Any) -> bool:
        raise RuntimeError(VERIFY_FAILURE_TEXT)

    outcome = run_decisions("decisions-act-then-done", flavour, observation=_observation, task=TASK, verify=verify)
    expect(outcome.executed == ["review"], "RN-DIAG-004", f"executors run: {outcome.executed}")
    expect(isinstance(outcome.error, DecisionsToolRunnerError), "RN-DIAG-004", f"outcome: {outcome.error!r}")
    leaks = _leaks(outcome.diagnostics, DECISIONS_CANARIES)
    expect(not leaks, "RN-DIAG-004", f"private data in diagnostics: {leaks}")


@pytest.mark.clause("RN-DIAG-004")
@pytest.mark.parametrize("flavour", flavours())
def test_decisions_diagnostics_carry_no_private_data(flavour: Flavour) -> None:
    outcome = _run_decisions_private(flavour)
    first = json.dumps(outcome.requests[0].body)
    expect(
        TASK in first and OBSERVATION_TEXT in first and PIXEL_DATA_URL in first,
        "RN-DIAG-004",
        "the planted task, observation text or image never reached the request",
    )
    expect(outcome.executed == ["review"], "RN-DIAG-004", f"executors run: {outcome.executed}")
    expect(isinstance(outcome.error, DecisionsToolRunnerError), "RN-DIAG-004", f"outcome: {outcome.error!r}")
    leaks = _leaks(outcome.diagnostics, DECISIONS_CANARIES)
    expect(not leaks, "RN-DIAG-004", f"private data in diagnostics: {leaks}")


# The API's error message and a transport failure's text are exception text as much as an executor's is.
API_ERROR_CANARIES = (PRIVATE_API_ERROR, "api-error-canary-6a5f", "acct_9921", FAKE_API_KEY)
DROPPED_STREAM_TEXT = "injected connection drop"


def _expect_api_error_text_kept_out(outcome: CapturedRun | DecisionsRun, stopped_on: type[Exception]) -> None:
    """The run stopped with ``stopped_on`` after its second request (the one the API refused), and no diagnostic
    repeats the API's error text."""
    expect(
        isinstance(outcome.error, stopped_on) and len(outcome.requests) == 2,
        "RN-DIAG-004",
        f"the second request did not fail: {len(outcome.requests)} requests, {outcome.error!r}",
    )
    leaks = _leaks(outcome.diagnostics, API_ERROR_CANARIES)
    expect(not leaks, "RN-DIAG-004", f"API error text in diagnostics: {leaks}")


@pytest.mark.clause("RN-DIAG-004")
@pytest.mark.parametrize("mode", modes())
def test_responses_api_failure_text_stays_out_of_diagnostics(mode: Mode) -> None:
    _expect_api_error_text_kept_out(run("diagnostics-api-error", Setup(), mode), ToolRunnerError)


@pytest.mark.clause("RN-DIAG-004")
@pytest.mark.parametrize("mode", modes(stream=True))
def test_responses_transport_failure_text_stays_out_of_diagnostics(mode: Mode) -> None:
    setup = Setup(functions=(Function("lookup"), Function("note")))
    outcome = run("stream-dropped-after-call", setup, mode)
    expect(outcome.error is not None, "RN-DIAG-004", "the dropped stream did not stop the run")
    leaks = _leaks(outcome.diagnostics, (DROPPED_STREAM_TEXT, "RemoteProtocolError"))
    expect(not leaks, "RN-DIAG-004", f"transport error text in diagnostics: {leaks}")


@pytest.mark.clause("RN-DIAG-004")
@pytest.mark.parametrize("flavour", flavours())
def test_decisions_api_failure_text_stays_out_of_diagnostics(flavour: Flavour) -> None:
    _expect_api_error_text_kept_out(run_decisions("decisions-api-error", flavour), DecisionsToolRunnerError)


# ------------------------------------------------------------------------------------------ usage


def _request_usages(diagnostics: list[dict[str, Any]]) -> list[Any]:
    return [d["usage"] for d in diagnostics if d["stage"] == "request" and d["reason"] == "completed"]


@pytest.mark.clause("RN-DIAG-005")
@pytest.mark.parametrize("mode", modes())
def test_responses_usage_is_native_counts_or_none(mode: Mode) -> None:
    outcome = run("diagnostics-no-usage", Setup(), mode).finished("RN-DIAG-005")
    usages = _request_usages(outcome.diagnostics)
    expected = [None, {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}]
    expect(usages == expected, "RN-DIAG-005", f"request usage {usages}, expected {expected}")
    # Only a parsed response supplies usage; events about calls have none to report.
    others = [d for d in outcome.diagnostics if d["stage"] != "request" and d["usage"] is not None]
    expect(not others, "RN-DIAG-005", f"usage on diagnostics without a response: {others}")


@pytest.mark.clause("RN-DIAG-005")
@pytest.mark.parametrize("flavour", flavours())
def test_decisions_usage_is_native_counts(flavour: Flavour) -> None:
    outcome = run_decisions("decisions-act-then-done", flavour).finished("RN-DIAG-005")
    usages = _request_usages(outcome.diagnostics)
    native = {"input_tokens": 20, "output_tokens": 2, "total_tokens": 22}
    expect(usages == [native, native], "RN-DIAG-005", f"request usage {usages}, expected the answers' counts")
    others = [d for d in outcome.diagnostics if d["stage"] != "request" and d["usage"] is not None]
    expect(not others, "RN-DIAG-005", f"usage on diagnostics without a response: {others}")


# ------------------------------------------------------------------------------------------ failing callback


# A plain error, and a cancellation error that a runner could mistake for the task itself being cancelled.
OBSERVER_FAILURES = {"observer-error": DiagnosticObserverFailure, "observer-cancelled-error": asyncio.CancelledError}


def _raising_observer(seen: list[dict[str, Any]], failure: type[BaseException]) -> Any:
    def observe(diagnostic: dict[str, Any]) -> None:
        seen.append(diagnostic)
        raise failure("observer failed")

    return observe


def _responses_summary(outcome: CapturedRun) -> dict[str, Any]:
    error = outcome.error
    return {
        "error": None if error is None else (type(error).__name__, str(error)),
        "receipts": outcome.receipts if isinstance(error, ToolRunnerError) else None,
        "output": None if outcome.response is None else [item.to_dict() for item in outcome.response.output],
        "calls": [entry for entry in outcome.timeline.entries if entry.startswith("call:")],
        "driver": outcome.probe_log.names(),
        "bodies": outcome.bodies,
    }


@pytest.mark.clause("RN-DIAG-006")
@pytest.mark.parametrize("failure", list(OBSERVER_FAILURES))
@pytest.mark.parametrize("scenario", ["diagnostics-private-data", "two-calls-two-turns"])
@pytest.mark.parametrize("mode", modes())
def test_responses_failing_observer_changes_nothing(mode: Mode, scenario: str, failure: str) -> None:
    # The private-data run needs a click approval and ends in a failing call; the other one succeeds.
    setup = PRIVATE_SETUP if scenario == "diagnostics-private-data" else Setup(browser=("get_page_text",))
    baseline = run(scenario, setup, mode)
    seen: list[dict[str, Any]] = []
    failing = run(scenario, setup, mode, on_diagnostic=_raising_observer(seen, OBSERVER_FAILURES[failure]))
    expect(bool(seen), "RN-DIAG-006", "the failing observer was never called")
    expected, actual = _responses_summary(baseline), _responses_summary(failing)
    differences = {key: (expected[key], actual[key]) for key in expected if expected[key] != actual[key]}
    expect(not differences, "RN-DIAG-006", f"a failing observer changed the run: {differences}")


def _decisions_summary(outcome: DecisionsRun) -> dict[str, Any]:
    error = outcome.error
    result = outcome.result
    return {
        "error": None if error is None else (type(error).__name__, getattr(error, "reason", str(error))),
        "receipts": None
        if not isinstance(error, DecisionsToolRunnerError)
        else (error.attempted_candidate_ids, error.completed_candidate_ids),
        "result": None
        if result is None
        else (result["status"], result["attempted_candidate_ids"], result["completed_candidate_ids"]),
        "executed": outcome.executed,
        "bodies": [request.body for request in outcome.requests],
    }


@pytest.mark.clause("RN-DIAG-006")
@pytest.mark.parametrize("observer", list(OBSERVER_FAILURES))
@pytest.mark.parametrize("fails", [False, True], ids=["executor-returns", "executor-raises"])
@pytest.mark.parametrize("flavour", flavours())
def test_decisions_failing_observer_changes_nothing(flavour: Flavour, fails: bool, observer: str) -> None:
    failure = RuntimeError(FAILURE_TEXT) if fails else None

    def once(**options: Any) -> DecisionsRun:
        return run_decisions(
            "decisions-act-then-done",
            flavour,
            actions=(Action("review", failure=failure),),
            verify=lambda observation: True,
            **options,
        )

    baseline = once()
    seen: list[dict[str, Any]] = []
    failing = once(on_diagnostic=_raising_observer(seen, OBSERVER_FAILURES[observer]))
    expect(bool(seen), "RN-DIAG-006", "the failing observer was never called")
    expected, actual = _decisions_summary(baseline), _decisions_summary(failing)
    differences = {key: (expected[key], actual[key]) for key in expected if expected[key] != actual[key]}
    expect(not differences, "RN-DIAG-006", f"a failing observer changed the run: {differences}")
