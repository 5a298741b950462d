"""The basic loop in every mode: arguments in, outputs back in call order, final messages end the run.

spec/000 "Mix browser, computer, and ordinary functions" and "Streaming and interrupted actions".
"""

from __future__ import annotations

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import Function, Mode, Setup, input_summary, modes, run


@pytest.mark.clause("RN-LOOP-004", "RN-LOOP-003")
@pytest.mark.parametrize("mode", modes())
def test_final_message_ends_without_effects(mode: Mode) -> None:
    outcome = run("final-message", Setup(), mode).finished("RN-LOOP-004")
    expect(outcome.response.output_text == "Hello.", "RN-LOOP-004", "the final response is returned")
    expect(outcome.timeline.calls() == [] and len(outcome.requests) == 1, "RN-LOOP-004", "no effect, one request")


@pytest.mark.clause("RN-LOOP-001", "RN-LOOP-003")
@pytest.mark.parametrize("mode", modes())
def test_function_output_is_sent_back(mode: Mode) -> None:
    outcome = run("one-function", Setup(functions=(Function("lookup", reply="found c1"),)), mode).finished(
        "RN-LOOP-001"
    )
    expect(outcome.timeline.calls() == ["c1"], "RN-LOOP-001", f"executor calls: {outcome.timeline.calls()}")
    expect(len(outcome.requests) == 2, "RN-LOOP-001", "one request per turn")
    expect(
        input_summary(outcome.input_of(1))
        == ["user:hi", "function_call:c1:lookup", "function_call_output:c1:found c1"],
        "RN-LOOP-001",
        f"second request input: {input_summary(outcome.input_of(1))}",
    )
    expect(outcome.response.output_text == "Done.", "RN-LOOP-001", "the last response is returned")


@pytest.mark.clause("RN-LOOP-002", "RN-LOOP-003")
@pytest.mark.parametrize("mode", modes())
def test_outputs_follow_original_call_order(mode: Mode) -> None:
    setup = Setup(functions=(Function("lookup", reply="A"), Function("note", reply="B")))
    outcome = run("two-functions-order", setup, mode).finished("RN-LOOP-002")
    expect(outcome.timeline.calls() == ["c1", "c2"], "RN-LOOP-002", f"execution order {outcome.timeline.calls()}")
    expect(
        input_summary(outcome.input_of(1))[1:]
        == [
            "function_call:c1:lookup",
            "function_call:c2:note",
            "function_call_output:c1:A",
            "function_call_output:c2:B",
        ],
        "RN-LOOP-002",
        f"second request input: {input_summary(outcome.input_of(1))}",
    )


@pytest.mark.clause("RN-STREAM-007")
@pytest.mark.parametrize("mode", modes(stream=True, ledger=False))
def test_on_event_sees_the_stream(mode: Mode) -> None:
    seen: list[str] = []
    setup = Setup(run_options={"on_event": lambda event: seen.append(event.type)})
    run("one-function", setup, mode).finished("RN-STREAM-007")
    expect(
        seen.count("response.completed") == 2 and seen.count("response.created") == 2,
        "RN-STREAM-007",
        f"events seen: {seen}",
    )


@pytest.mark.clause("RN-STEPS-001")
@pytest.mark.parametrize("mode", modes())
def test_final_allowed_request_starts_no_effect(mode: Mode) -> None:
    outcome = run("max-steps-two", Setup(run_options={"max_steps": 2}), mode)
    expect(outcome.error is not None, "RN-STEPS-001", "a call on the last allowed request must stop the run")
    expect(len(outcome.requests) == 2, "RN-STEPS-001", f"{len(outcome.requests)} requests sent, allowed 2")
    expect(outcome.timeline.calls() == ["c1"], "RN-STEPS-001", f"calls run: {outcome.timeline.calls()}")
    attempted, _ = outcome.receipts
    expect("c2" not in attempted, "RN-STEPS-001", f"c2 was attempted: {attempted}")


@pytest.mark.clause("RN-STEPS-002")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_default_request_limit_is_twenty(mode: Mode) -> None:
    outcome = run("endless-calls", Setup(), mode)
    expect(outcome.error is not None, "RN-STEPS-002", "the run must stop at its request limit")
    expect(len(outcome.requests) == 20, "RN-STEPS-002", f"{len(outcome.requests)} requests sent")
    expect(len(outcome.timeline.calls()) == 19, "RN-STEPS-002", f"{len(outcome.timeline.calls())} calls ran")


@pytest.mark.clause("RN-ERR-001")
@pytest.mark.parametrize("mode", modes())
def test_api_failure_keeps_receipts_and_generic_message(mode: Mode) -> None:
    outcome = run("http-error-second-request", Setup(), mode)
    expect(outcome.error is not None, "RN-ERR-001", "an HTTP 500 must stop the run")
    # The fixed text is the Python guide's; the Node declarations promise a generic stop with receipts but no text,
    # so on the Node SDK only "generic" (no API error text, below) is checked.
    if mode.flavour != "node":
        expect(str(outcome.error) == "Tool run stopped before completion.", "RN-ERR-001", f"message: {outcome.error}")
    expect("injected" not in str(outcome.error), "RN-ERR-001", "the API error text leaks into the message")
    expect(outcome.receipts == (("c1",), ("c1",)), "RN-ERR-001", f"receipts: {outcome.receipts}")
