"""Computer calls with pending safety checks, run through the mixed Responses runner.

spec/000 "Mix browser, computer, and ordinary functions" (a registered computer; approve_safety_checks and
before_action on run(); the optional keyword-only ``cancelled`` parameter), "Streaming and interrupted actions"
(receipts, cancellation), "Choose which tools can run early" (early execution changes timing, not permission);
spec/002 "Approve actions and own the session" (missing or declined approval stops the run; before_action
checks every action including the final screenshot).

What the computer toolset does on its own is checked in conformance/contracts/toolset/test_computer.py. These
checks are about the runner around it: the order of approvals against actions, other calls and requests, what
the next request carries, how a refusal or cancellation stops the run and which receipts it keeps, in every
runner mode the documents say the behaviour applies to.

Expectations (call IDs, checks, actions) are read from the cassettes, so a changed scenario cannot leave a
check asserting stale literals.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from openai.lib.responses_tool_runner import ToolRunnerCancelledError, ToolRunnerError

from conformance import python_only_reasons as python_only
from conformance.assertions import expect
from conformance.contracts.runner._node_scenario import close_at_first_turn_in_node
from conformance.contracts.runner._scenario import (
    ALL_MODES,
    Approval,
    CapturedRun,
    Mode,
    ScenarioRun,
    Setup,
    load,
    modes,
)

# lookup c1, then a click (c2) carrying one pending check, then lookup c3; the next turn answers.
CHECKED = "computer-safety-check"
# A click/type/keypress batch (c1) carrying two pending checks, then lookup c2; the next turn answers.
BATCH = "computer-safety-batch"

ASYNC_MODES = [pytest.param(mode, id=mode.id) for mode in ALL_MODES if mode.flavour == "async"]


# ------------------------------------------------------------------------------------------ cassette facts


def _first_turn(name: str) -> list[dict[str, Any]]:
    """The output items of the cassette's first response (from its terminal event)."""
    events = load(name).exchanges[0].response.events or ()
    return list(events[-1]["response"]["output"])  # type: ignore[index]


def _computer_item(name: str) -> dict[str, Any]:
    return next(item for item in _first_turn(name) if item["type"] == "computer_call")


def _call_ids(name: str) -> list[str]:
    return [str(item["call_id"]) for item in _first_turn(name)]


def _actions(name: str) -> list[dict[str, Any]]:
    """The actions of the cassette's computer call as the toolset runs them: the batch, then the final capture."""
    item = _computer_item(name)
    actions = list(item["actions"]) if "actions" in item else [item["action"]]
    return actions if actions[-1]["type"] == "screenshot" else [*actions, {"type": "screenshot"}]


def _fields(received: object) -> dict[str, Any]:
    """A received call or action as plain fields (the SDK hands callbacks generated models)."""
    if hasattr(received, "model_dump"):
        return dict(received.model_dump(exclude_none=True))
    return dict(received) if isinstance(received, dict) else {}


# ------------------------------------------------------------------------------------------ outcome views


def _driver_actions(outcome: CapturedRun) -> list[str]:
    """Computer driver effects in order (the final screenshot capture is not an effect on the timeline)."""
    return [
        entry.split(":")[1].removeprefix("computer_")
        for entry in outcome.timeline.entries
        if entry.startswith("call:computer_")
    ]


def _functions_run(outcome: CapturedRun) -> list[str]:
    return [
        entry.split(":")[-1]
        for entry in outcome.timeline.entries
        if entry.startswith("call:") and not entry.startswith("call:computer_")
    ]


def _asked(outcome: CapturedRun, callback: str) -> list[str]:
    """What ``callback`` was asked about, in order: call IDs for approvals, action types for before_action."""
    return [entry.split(":", 1)[1] for entry in outcome.timeline.entries if entry.startswith(f"{callback}:")]


def _input_items(outcome: CapturedRun, request: int, kind: str) -> list[dict[str, Any]]:
    return [item for item in outcome.input_of(request) if item.get("type") == kind]


def _runner_error(outcome: CapturedRun, clause: str) -> ToolRunnerError:
    error = outcome.error
    expect(isinstance(error, ToolRunnerError), clause, f"the run did not stop with ToolRunnerError: {error!r}")
    assert isinstance(error, ToolRunnerError)
    return error


def _stopped_after_first_request(outcome: CapturedRun, clause: str) -> None:
    expect(len(outcome.requests) == 1, clause, f"{len(outcome.requests)} requests sent; the stop allows only the first")


def _approved_run(cassette: str, mode: Mode, clause: str, **setup: Any) -> CapturedRun:
    """A run of ``cassette`` whose computer has every safety check and action approved by recording callbacks,
    after failing ``clause`` unless it finished: the order checks judge only a run that went all the way."""
    approving = Setup(computer=True, approve_safety_checks=Approval(), before_action=Approval(), **setup)
    return ScenarioRun(load(cassette), approving, mode).run().finished(clause)


def _released(harness: ScenarioRun, clause: str) -> None:
    toolset = harness.computer_toolset
    assert toolset is not None, "the scenario declared no computer toolset"
    status = toolset.close()
    expect(status == {"status": "closed"}, clause, f"the computer toolset was not released: {status}")


# ------------------------------------------------------------------------------------------ approval


@pytest.mark.clause("RN-SAFETY-001")
@pytest.mark.parametrize("mode", modes())
def test_approval_comes_once_before_any_computer_action(mode: Mode) -> None:
    harness = ScenarioRun(load(BATCH), Setup(computer=True, approve_safety_checks=Approval()), mode)
    outcome = harness.run()
    expect(outcome.error is None, "RN-SAFETY-001", f"the approved run failed: {outcome.error!r}")
    item = _computer_item(BATCH)
    names = outcome.probe_log.names()
    expect(
        names.count("approve_safety_checks") == 1 and names[0] == "approve_safety_checks",
        "RN-SAFETY-001",
        f"approval was not asked once before the driver calls: {names}",
    )
    expect(_asked(outcome, "approve_safety_checks") == [item["call_id"]], "RN-SAFETY-001", "asked about another call")
    received = _fields(outcome.probe_log.of("approve_safety_checks")[0].argument)
    expect(
        received.get("pending_safety_checks") == item["pending_safety_checks"],
        "RN-SAFETY-001",
        f"the callback did not get the call's checks: {received.get('pending_safety_checks')}",
    )
    expect(
        _driver_actions(outcome) == [action["type"] for action in _actions(BATCH)[:-1]],
        "RN-SAFETY-001",
        f"approved actions did not all run: {_driver_actions(outcome)}",
    )


@pytest.mark.clause("RN-SAFETY-002")
@pytest.mark.parametrize("mode", modes())
def test_next_request_acknowledges_every_approved_check(mode: Mode) -> None:
    outcome = ScenarioRun(load(BATCH), Setup(computer=True, approve_safety_checks=Approval()), mode).run()
    expect(outcome.error is None and len(outcome.requests) == 2, "RN-SAFETY-002", f"run failed: {outcome.error!r}")
    item = _computer_item(BATCH)
    replayed = [call for call in _input_items(outcome, 1, "computer_call") if call.get("call_id") == item["call_id"]]
    expect(
        len(replayed) == 1 and replayed[0].get("pending_safety_checks") == item["pending_safety_checks"],
        "RN-SAFETY-002",
        f"the next request does not replay the call with its checks: {replayed}",
    )
    outputs = [out for out in _input_items(outcome, 1, "computer_call_output") if out["call_id"] == item["call_id"]]
    acknowledged = outputs[0].get("acknowledged_safety_checks") if len(outputs) == 1 else None
    expect(
        acknowledged == item["pending_safety_checks"],
        "RN-SAFETY-002",
        f"the output does not acknowledge each pending check: {acknowledged}",
    )


# Answers that are not exactly True, and a callback that fails; "missing" passes no callback at all.
REFUSALS: dict[str, object] = {
    "false": False,
    "truthy-one": 1,
    "none": None,
    "raises": RuntimeError("approval service unavailable"),
}


@pytest.mark.clause("RN-SAFETY-003", "RN-SAFETY-004", "RN-SAFETY-009")
@pytest.mark.parametrize("answer", [*REFUSALS, "missing"])
@pytest.mark.parametrize("mode", modes())
def test_unapproved_checks_stop_the_run_with_receipts(mode: Mode, answer: str) -> None:
    setup = Setup(computer=True)
    if answer != "missing":
        setup = Setup(computer=True, approve_safety_checks=Approval(reply=REFUSALS[answer]))
    harness = ScenarioRun(load(CHECKED), setup, mode)
    outcome = harness.run()
    before, computer_id, after = _call_ids(CHECKED)
    error = _runner_error(outcome, "RN-SAFETY-003")
    expect(_driver_actions(outcome) == [], "RN-SAFETY-003", f"unapproved actions ran: {_driver_actions(outcome)}")
    expect(after not in _functions_run(outcome), "RN-SAFETY-003", f"{after} ran after the refusal")
    _stopped_after_first_request(outcome, "RN-SAFETY-003")
    attempted, completed = tuple(error.attempted_call_ids), tuple(error.completed_call_ids)
    expect(computer_id not in completed, "RN-SAFETY-004", f"the refused call counts as completed: {completed}")
    expect(
        before in attempted and before in completed,
        "RN-SAFETY-004",
        f"the earlier call lost its receipts: attempted {attempted}, completed {completed}",
    )
    _released(harness, "RN-SAFETY-009")


@pytest.mark.clause("RN-LEDGER-003")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_refused_approval_leaves_no_resumable_boundary(mode: Mode) -> None:
    # The refused call is pending work: its last checkpoint must not let a new run carry on past it.
    refused = ScenarioRun(load(CHECKED), Setup(computer=True, approve_safety_checks=Approval(reply=False)), mode).run()
    assert refused.error is not None and refused.checkpoints, "the refusal scenario no longer stops with a ledger"
    resumed_harness = ScenarioRun(load(CHECKED), Setup(computer=True, approve_safety_checks=Approval()), mode)
    resumed = resumed_harness.run(ledger=resumed_harness.ledger(resume_from=refused.checkpoints[-1]))
    expect(resumed.error is not None, "RN-LEDGER-003", "a run resumed from the refusal's pending checkpoint")
    expect(len(resumed.requests) == 0, "RN-LEDGER-003", f"the refused resume sent {len(resumed.requests)} requests")
    effects = [entry for entry in resumed.timeline.entries if entry.startswith(("call:", "approve_safety_checks:"))]
    expect(effects == [], "RN-LEDGER-003", f"the refused resume still acted: {effects}")


# ------------------------------------------------------------------------------------------ before_action


@pytest.mark.clause("RN-SAFETY-005")
@pytest.mark.parametrize("mode", modes())
def test_before_action_asks_about_each_action_just_before_it(mode: Mode) -> None:
    outcome = _approved_run(BATCH, mode, "RN-SAFETY-005")
    actions = _actions(BATCH)
    # Each question is followed directly by that action's driver call (the screenshot is the final capture).
    expected = [name for action in actions for name in ("before_action", action["type"])]
    driver_and_questions = [name for name in outcome.probe_log.names() if name != "approve_safety_checks"]
    expect(driver_and_questions == expected, "RN-SAFETY-005", f"order was {driver_and_questions}")
    received = [_fields(call.argument) for call in outcome.probe_log.of("before_action")]
    expect(received == actions, "RN-SAFETY-005", f"before_action received {received}")


@pytest.mark.clause("RN-SAFETY-006", "RN-SAFETY-004")
@pytest.mark.parametrize("refused_at", range(4))
@pytest.mark.parametrize("mode", modes())
def test_before_action_refusal_stops_that_action_and_the_rest(mode: Mode, refused_at: int) -> None:
    actions = [action["type"] for action in _actions(BATCH)]
    assert refused_at < len(actions), "the batch cassette changed: fewer actions than the parametrization"
    refused = actions[refused_at]
    before_action = Approval(reply=lambda action: getattr(action, "type", None) != refused)
    setup = Setup(computer=True, approve_safety_checks=Approval(), before_action=before_action)
    outcome = ScenarioRun(load(BATCH), setup, mode).run()
    computer_id, after = _call_ids(BATCH)
    error = _runner_error(outcome, "RN-SAFETY-006")
    ran = [name for name in outcome.probe_log.names() if name in actions]
    expect(ran == actions[:refused_at], "RN-SAFETY-006", f"refused {refused!r} but the driver ran {ran}")
    expect(
        _asked(outcome, "before_action") == actions[: refused_at + 1],
        "RN-SAFETY-006",
        f"before_action was asked after the refusal: {_asked(outcome, 'before_action')}",
    )
    expect(after not in _functions_run(outcome), "RN-SAFETY-006", f"{after} ran after the refusal")
    _stopped_after_first_request(outcome, "RN-SAFETY-006")
    expect(computer_id not in error.completed_call_ids, "RN-SAFETY-004", "a refused call counts as completed")
    if refused_at > 0:
        expect(
            computer_id in error.attempted_call_ids,
            "RN-SAFETY-004",
            f"actions of {computer_id} ran but it is not attempted: {error.attempted_call_ids}",
        )


# ------------------------------------------------------------------------------------------ cancellation


@pytest.mark.clause("RN-SAFETY-007")
@pytest.mark.parametrize("declares", [True, False], ids=["declares-cancelled", "one-argument"])
@pytest.mark.parametrize("mode", modes())
def test_callbacks_get_the_cancellation_probe_only_when_declared(mode: Mode, declares: bool) -> None:
    stop: list[bool] = []
    setup = Setup(
        computer=True,
        approve_safety_checks=Approval(declares_cancelled=declares),
        before_action=Approval(declares_cancelled=declares),
        run_options={"cancelled": lambda: bool(stop)},
    )
    outcome = ScenarioRun(load(BATCH), setup, mode).run()
    expect(outcome.error is None, "RN-SAFETY-007", f"the run failed with these callbacks: {outcome.error!r}")
    calls = [call for call in outcome.probe_log.calls if call.name in ("approve_safety_checks", "before_action")]
    expect(len(calls) == 1 + len(_actions(BATCH)), "RN-SAFETY-007", f"callbacks asked: {[c.name for c in calls]}")
    expect(
        all(call.cancelled_passed is declares for call in calls),
        "RN-SAFETY-007",
        f"cancelled passed: {[call.cancelled_passed for call in calls]} for a callback declaring it: {declares}",
    )
    if declares:
        # The probe must be the run's: it answers what the predicate given to run() answers, now and later.
        probes = [call.cancelled for call in calls]
        expect(all(callable(probe) for probe in probes), "RN-SAFETY-007", f"received probes: {probes}")
        quiet = [probe() for probe in probes if probe is not None]
        stop.append(True)
        stopped = [probe() for probe in probes if probe is not None]
        expect(
            not any(quiet) and all(stopped),
            "RN-SAFETY-007",
            f"the probe does not follow the run's predicate: {quiet} then {stopped}",
        )


@pytest.mark.clause("RN-SAFETY-008", "RN-SAFETY-009")
@pytest.mark.parametrize("reported_in", ["approve_safety_checks", "before_action"])
@pytest.mark.parametrize("mode", modes())
def test_no_action_after_cancellation_reported_in_a_callback(mode: Mode, reported_in: str) -> None:
    actions = [action["type"] for action in _actions(BATCH)]
    stop: list[bool] = []
    # The callback reports the stop and still approves: the approval must not outrun the cancellation.
    in_approval = reported_in == "approve_safety_checks"
    approve = Approval(declares_cancelled=True, side_effect=lambda call: stop.append(True) if in_approval else None)
    second_action = actions[1]

    def on_action(action: object) -> None:
        if not in_approval and getattr(action, "type", None) == second_action:
            stop.append(True)

    setup = Setup(
        computer=True,
        approve_safety_checks=approve,
        before_action=Approval(declares_cancelled=True, side_effect=on_action),
        run_options={"cancelled": lambda: bool(stop)},
    )
    harness = ScenarioRun(load(BATCH), setup, mode)
    outcome = harness.run()
    expect(outcome.error is not None, "RN-SAFETY-008", "the run went on after a reported cancellation")
    ran = [name for name in outcome.probe_log.names() if name in actions]
    allowed = [] if in_approval else actions[:1]
    expect(ran == allowed, "RN-SAFETY-008", f"after cancellation in {reported_in} the driver ran {ran}")
    expect(_call_ids(BATCH)[1] not in _functions_run(outcome), "RN-SAFETY-008", "a later call ran after the stop")
    _stopped_after_first_request(outcome, "RN-SAFETY-008")
    _released(harness, "RN-SAFETY-009")


@pytest.mark.python_sdk_only(python_only.TASK_CANCELLATION)
@pytest.mark.clause("RN-CANCEL-002", "RN-SAFETY-008", "RN-SAFETY-009")
@pytest.mark.parametrize("mode", ASYNC_MODES)
def test_task_cancelled_while_approval_is_pending(mode: Mode) -> None:
    pending = asyncio.Event()

    async def ask_a_person(call: object) -> bool:
        pending.set()
        await asyncio.sleep(30)  # a person who never answers; the task is cancelled long before
        return True

    harness = ScenarioRun(load(CHECKED), Setup(computer=True, approve_safety_checks=Approval(reply=ask_a_person)), mode)
    runner = harness.build_runner()
    caught: list[BaseException] = []

    async def task_body() -> None:
        try:
            await runner.run(harness.client(), dict(harness.setup.params), **harness.run_kwargs())
        except BaseException as error:  # the receipts are only readable inside the task (spec/000)
            caught.append(error)
            raise

    async def go() -> None:
        task = asyncio.create_task(task_body())
        await asyncio.wait_for(pending.wait(), timeout=10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    before, computer_id, after = _call_ids(CHECKED)
    error = caught[0] if caught else None
    expect(isinstance(error, ToolRunnerCancelledError), "RN-CANCEL-002", f"the task saw {error!r}")
    assert isinstance(error, ToolRunnerCancelledError)
    expect(
        before in error.completed_call_ids and computer_id not in error.completed_call_ids,
        "RN-CANCEL-002",
        f"receipts: attempted {error.attempted_call_ids}, completed {error.completed_call_ids}",
    )
    effects = [entry for entry in harness.timeline.entries if entry.startswith("call:computer_")]
    expect(effects == [], "RN-SAFETY-008", f"actions ran after the cancelled approval: {effects}")
    expect(f"call:lookup:{after}" not in harness.timeline.entries, "RN-SAFETY-008", f"{after} ran after the stop")
    expect(len(harness.transport.sent) == 1, "RN-SAFETY-008", "a request was sent after the cancellation")
    expect(runner.close() == {"status": "closed"}, "RN-SAFETY-009", "the runner was not released")
    _released(harness, "RN-SAFETY-009")


@pytest.mark.python_sdk_only(python_only.TASK_CANCELLATION)
@pytest.mark.clause("RN-SAFETY-008", "RN-SAFETY-009")
@pytest.mark.parametrize("mode", ASYNC_MODES)
def test_callback_suppressing_task_cancellation_still_stops_effects(mode: Mode) -> None:
    # spec/000: a callback may swallow task cancellation, and must then rely on the persistent predicate.
    pending = asyncio.Event()
    stop: list[bool] = []

    async def swallow_cancellation(call: object) -> bool:
        pending.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            stop.append(True)  # report the stop through the run's predicate, then approve anyway
        return True

    setup = Setup(
        computer=True,
        approve_safety_checks=Approval(reply=swallow_cancellation),
        run_options={"cancelled": lambda: bool(stop)},
    )
    harness = ScenarioRun(load(CHECKED), setup, mode)
    runner = harness.build_runner()

    async def go() -> None:
        task = asyncio.create_task(runner.run(harness.client(), dict(harness.setup.params), **harness.run_kwargs()))
        await asyncio.wait_for(pending.wait(), timeout=10)
        task.cancel()
        with pytest.raises(BaseException):  # noqa: B017 - no error type is documented here; effects are checked
            await task

    asyncio.run(go())
    after = _call_ids(CHECKED)[2]
    effects = [entry for entry in harness.timeline.entries if entry.startswith("call:computer_")]
    expect(effects == [], "RN-SAFETY-008", f"the swallowed cancellation still let actions run: {effects}")
    expect(f"call:lookup:{after}" not in harness.timeline.entries, "RN-SAFETY-008", f"{after} ran after the stop")
    expect(len(harness.transport.sent) == 1, "RN-SAFETY-008", "a request was sent after the stop")
    _released(harness, "RN-SAFETY-009")


@pytest.mark.clause("RN-DIAG-006")
@pytest.mark.parametrize("approved", [True, False], ids=["approved", "refused"])
@pytest.mark.parametrize("mode", modes())
def test_failing_observer_cannot_change_a_computer_approval(mode: Mode, approved: bool) -> None:
    def broken_observer(event: object) -> None:
        raise RuntimeError("diagnostics sink unavailable")

    setup = Setup(computer=True, approve_safety_checks=Approval(reply=approved))
    outcome = ScenarioRun(load(CHECKED), setup, mode).run(on_diagnostic=broken_observer)
    ran = _driver_actions(outcome)
    if approved:
        expect(outcome.error is None, "RN-DIAG-006", f"a failing observer stopped an approved run: {outcome.error!r}")
        expect(ran == [_actions(CHECKED)[0]["type"]], "RN-DIAG-006", f"approved actions: {ran}")
    else:
        expect(outcome.error is not None and ran == [], "RN-DIAG-006", f"a failing observer let {ran} run")


def _private_strings(name: str) -> list[str]:
    """Text from the cassette's computer call that no diagnostic may repeat: check messages, typed text, keys."""
    item = _computer_item(name)
    strings = [str(check["message"]) for check in item["pending_safety_checks"]]
    for action in _actions(name):
        strings += [str(action["text"])] if "text" in action else []
        strings += [str(key) for key in action.get("keys") or ()]
    return strings


@pytest.mark.clause("RN-DIAG-004")
@pytest.mark.parametrize("refuse", [False, True], ids=["approved", "refused-mid-batch"])
@pytest.mark.parametrize("mode", modes())
def test_computer_approval_diagnostics_hold_no_private_text(mode: Mode, refuse: bool) -> None:
    last = _actions(BATCH)[-2]["type"]  # refusing the last real action leaves approvals of both outcomes
    before_action = Approval(reply=(lambda action: getattr(action, "type", None) != last) if refuse else True)
    setup = Setup(computer=True, approve_safety_checks=Approval(), before_action=before_action)
    outcome = ScenarioRun(load(BATCH), setup, mode).run()
    private = _private_strings(BATCH)
    assert private, "the batch cassette no longer carries private text to look for"
    leaked = [
        (diagnostic, secret)
        for diagnostic in outcome.diagnostics
        for value in diagnostic.values()
        if isinstance(value, str)
        for secret in private
        if secret in value
    ]
    expect(not leaked, "RN-DIAG-004", f"diagnostics repeat private text: {leaked}")


# ------------------------------------------------------------------------------------------ early execution

EARLY_COMPUTER = {"blanket-eager": None, "computer-listed": {"functions": ["lookup"], "computer": True}}


@pytest.mark.clause("RN-SAFETY-010", "RN-EARLY-004")
@pytest.mark.parametrize("policy", list(EARLY_COMPUTER))
@pytest.mark.parametrize("mode", modes(eager=True))
def test_early_computer_call_still_asks_before_each_effect(mode: Mode, policy: str) -> None:
    outcome = _approved_run(CHECKED, mode, "RN-SAFETY-010", early_execution=EARLY_COMPUTER[policy])
    entries = outcome.timeline.entries
    computer_id = _call_ids(CHECKED)[1]
    approval = entries.index(f"approve_safety_checks:{computer_id}")
    # The premise: the call really started before the completed response (else this check proves nothing).
    expect(
        outcome.timeline.ran_early(f"approve_safety_checks:{computer_id}"),
        "RN-EARLY-004",
        f"the selected computer call did not start early: {entries}",
    )
    first_action = _actions(CHECKED)[0]["type"]
    question = entries.index(f"before_action:{first_action}")
    effect = entries.index(f"call:computer_{first_action}:")
    expect(approval < question < effect, "RN-SAFETY-010", f"an early effect outran its approval: {entries}")
    expect(
        entries.index("before_action:screenshot") > effect,
        "RN-SAFETY-010",
        f"the final screenshot was not asked about after the action: {entries}",
    )


@pytest.mark.clause("RN-SAFETY-010")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_before_early_call_cannot_waive_the_checks(mode: Mode) -> None:
    hook_saw: list[str] = []

    def execute_and_edit(call: Any) -> str:
        # The hook gets a copy: emptying its checklist must not let the call skip approval.
        if getattr(call, "type", None) == "computer_call":
            hook_saw.append(call.call_id)
            call.pending_safety_checks.clear()
        return "execute"

    outcome = _approved_run(CHECKED, mode, "RN-SAFETY-010", run_options={"before_early_call": execute_and_edit})
    computer_id = _call_ids(CHECKED)[1]
    expect(hook_saw == [computer_id], "RN-SAFETY-010", f"before_early_call saw computer calls {hook_saw}")
    entries = outcome.timeline.entries
    first_action = _actions(CHECKED)[0]["type"]
    expect(
        entries.index(f"approve_safety_checks:{computer_id}") < entries.index(f"call:computer_{first_action}:"),
        "RN-SAFETY-010",
        f"the hook's answer stood in for approval: {entries}",
    )
    received = _fields(outcome.probe_log.of("approve_safety_checks")[0].argument)
    expect(
        received.get("pending_safety_checks") == _computer_item(CHECKED)["pending_safety_checks"],
        "RN-SAFETY-010",
        f"approval saw the hook's edited checklist: {received.get('pending_safety_checks')}",
    )


HELD = {
    "computer-flag-off": Setup(computer=True, early_execution={"functions": ["lookup"], "computer": False}),
    "server-tool-declared": Setup(computer=True).with_params(tools=[{"type": "web_search"}]),
}


@pytest.mark.clause("RN-SAFETY-011")
@pytest.mark.parametrize("held_by", list(HELD))
@pytest.mark.parametrize("mode", modes(eager=True))
def test_held_computer_call_asks_only_after_the_completed_response(mode: Mode, held_by: str) -> None:
    base = HELD[held_by]
    outcome = _approved_run(CHECKED, mode, "RN-SAFETY-011", early_execution=base.early_execution, params=base.params)
    computer_id = _call_ids(CHECKED)[1]
    outcome.timeline.expect_waited(
        "RN-SAFETY-011",
        "approval was asked before the completed response although the call was held",
        f"approve_safety_checks:{computer_id}",
    )


@pytest.mark.clause("RN-TURN-003")
@pytest.mark.parametrize("mode", modes())
def test_closing_iterate_at_the_boundary_asks_no_computer_approval(mode: Mode) -> None:
    # An empty early-execution policy defers every local tool in eager runs; other modes wait anyway. A person
    # must not be asked to approve a call the application then abandons by closing the iterator.
    setup = Setup(computer=True, early_execution={}, approve_safety_checks=Approval(), before_action=Approval())
    harness = ScenarioRun(load(CHECKED), setup, mode)
    if mode.flavour == "node":
        close_at_first_turn_in_node(harness)
    elif mode.flavour == "sync":
        runner, kwargs = harness.build_runner(), harness.run_kwargs()
        iterator = runner.iterate(harness.client(), dict(harness.setup.params), **kwargs)
        next(iterator)
        iterator.close()
    else:
        runner, kwargs = harness.build_runner(), harness.run_kwargs()

        async def go() -> None:
            iterator = runner.iterate(harness.client(), dict(harness.setup.params), **kwargs)
            await iterator.__anext__()
            await iterator.aclose()

        asyncio.run(go())
    asked = [name for name in harness.probe_log.names() if name in ("approve_safety_checks", "before_action")]
    effects = [entry for entry in harness.timeline.entries if entry.startswith("call:")]
    expect(asked == [] and effects == [], "RN-TURN-003", f"closing at the boundary still asked {asked}, ran {effects}")
    expect(len(harness.transport.sent) == 1, "RN-TURN-003", "a further request was sent")
    _released(harness, "RN-TURN-003")


# A click streamed without checks whose completed response lists one pending check.
LATE = "computer-checks-added-late"


@pytest.mark.clause("RN-STREAM-004")
@pytest.mark.parametrize("mode", modes(eager=True))
def test_checks_added_after_an_early_start_stop_the_run(mode: Mode) -> None:
    # The click already ran from its streamed item; the run must not go on to replay a call whose checks
    # nobody approved or acknowledged.
    outcome = ScenarioRun(load(LATE), Setup(computer=True, approve_safety_checks=Approval()), mode).run()
    computer_id = _call_ids(LATE)[0]
    error = _runner_error(outcome, "RN-STREAM-004")
    _stopped_after_first_request(outcome, "RN-STREAM-004")
    expect(
        computer_id in error.attempted_call_ids or not _driver_actions(outcome),
        "RN-STREAM-004",
        f"the click ran but is not in the receipts: {error.attempted_call_ids}",
    )


def _late_checks() -> list[dict[str, Any]]:
    """The pending checks the completed response of LATE lists (injected as a stream fault)."""
    fault = next(fault for fault in load(LATE).exchanges[0].faults if fault.kind == "completed_output")
    output: list[dict[str, Any]] = fault.fields["output"]  # type: ignore[assignment]
    return list(next(item for item in output if item["type"] == "computer_call")["pending_safety_checks"])


@pytest.mark.clause("RN-SAFETY-001", "RN-SAFETY-002")
@pytest.mark.parametrize("mode", modes(stream=True, eager=False))
def test_checks_in_the_completed_response_are_approved_before_the_action(mode: Mode) -> None:
    # Without eager the runner waits for the completed response, which lists the pending check. (A plain run
    # is served the recorded response without the injected check, so it has nothing to show here.)
    outcome = ScenarioRun(load(LATE), Setup(computer=True, approve_safety_checks=Approval()), mode).run()
    computer_id = _call_ids(LATE)[0]
    entries = outcome.timeline.entries
    clicked = "call:computer_click:" in entries
    asked = f"approve_safety_checks:{computer_id}" in entries
    expect(
        not clicked
        or (asked and entries.index(f"approve_safety_checks:{computer_id}") < entries.index("call:computer_click:")),
        "RN-SAFETY-001",
        f"the click ran without approving the completed response's check: {entries}",
    )
    if outcome.error is None:
        checks = _late_checks()
        assert checks, "the cassette no longer adds a check in its completed response"
        outputs = [out for out in _input_items(outcome, 1, "computer_call_output") if out["call_id"] == computer_id]
        expect(
            len(outputs) == 1 and outputs[0].get("acknowledged_safety_checks") == checks,
            "RN-SAFETY-002",
            f"the completed response's check was not acknowledged: {outputs}",
        )


# ------------------------------------------------------------------------------------------ copies


def _tamper(received: object) -> None:
    """Edit what a callback received the way a careless application might: coordinates, checks, IDs."""
    action = getattr(received, "action", received)
    for name, value in (("x", 999), ("y", 999), ("text", "tampered")):
        if getattr(action, name, None) is not None:
            setattr(action, name, value)
    for check in getattr(received, "pending_safety_checks", None) or ():
        check.id = "forged"
    if getattr(received, "call_id", None) is not None:
        received.call_id = "forged"  # type: ignore[attr-defined]


@pytest.mark.clause("RN-SAFETY-012")
@pytest.mark.parametrize("mode", modes())
def test_editing_what_callbacks_receive_changes_nothing(mode: Mode) -> None:
    setup = Setup(
        computer=True,
        approve_safety_checks=Approval(side_effect=_tamper),
        before_action=Approval(side_effect=_tamper),
    )
    outcome = ScenarioRun(load(CHECKED), setup, mode).run()
    expect(outcome.error is None, "RN-SAFETY-012", f"the run failed: {outcome.error!r}")
    item = _computer_item(CHECKED)
    performed = _fields(outcome.probe_log.of(item["action"]["type"])[0].argument)
    expect(performed == item["action"], "RN-SAFETY-012", f"the driver performed {performed}")
    replayed = [call for call in _input_items(outcome, 1, "computer_call") if call.get("call_id") == item["call_id"]]
    expect(
        len(replayed) == 1
        and replayed[0].get("action") == item["action"]
        and replayed[0].get("pending_safety_checks") == item["pending_safety_checks"],
        "RN-SAFETY-012",
        f"the replayed call changed: {replayed}",
    )
    outputs = [out for out in _input_items(outcome, 1, "computer_call_output") if out["call_id"] == item["call_id"]]
    expect(
        len(outputs) == 1 and outputs[0].get("acknowledged_safety_checks") == item["pending_safety_checks"],
        "RN-SAFETY-012",
        f"the acknowledged checks changed: {outputs}",
    )
