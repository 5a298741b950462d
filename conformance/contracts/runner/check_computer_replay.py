"""A computer call that came without pending_safety_checks is replayed with exactly the fields it came with.

spec/002 "Computer driver contract": a modern call (an actions array) may leave out pending_safety_checks, and the
replayed call keeps its original fields. The model's call here has no checklist; the next request must carry the
same item, with no checklist added and no other field changed, followed by its output.
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect, not_implemented
from conformance.cassette_builder import CassetteBuilder, message
from conformance.contracts.runner._scenario import Mode, ScenarioRun, Setup, modes

CALL: dict[str, Any] = {
    "type": "computer_call",
    "id": "cu_c1",
    "call_id": "c1",
    "status": "completed",
    "actions": [{"type": "click", "x": 40, "y": 60, "button": "left"}],
}


def _cassette() -> Any:
    return CassetteBuilder("computer-call-without-checklist").turn(dict(CALL)).turn(message("Done.")).build()


@pytest.mark.clause("RN-SAFETY-013")
@pytest.mark.parametrize("mode", modes())
def test_call_without_checklist_is_replayed_as_it_came(mode: Mode) -> None:
    if mode.flavour != "node":
        not_implemented(
            "a computer call without pending_safety_checks is the Node SDK's ComputerCallInput form; the Python "
            "SDK parses the API's call into its model"
        )
    outcome = ScenarioRun(_cassette(), Setup(functions=(), computer=True), mode).run().finished("RN-SAFETY-013")
    expect(len(outcome.requests) == 2, "RN-SAFETY-013", f"requests sent: {len(outcome.requests)}")
    replayed = [item for item in outcome.input_of(1) if item.get("type") == "computer_call"]
    expect(
        replayed == [CALL],
        "RN-SAFETY-013",
        f"the call came as {CALL} and was replayed as {replayed}",
    )
    kinds = [item.get("type") for item in outcome.input_of(1)]
    expect(
        kinds.count("computer_call_output") == 1 and kinds.index("computer_call") < kinds.index("computer_call_output"),
        "RN-SAFETY-013",
        f"the replayed call is not followed by its output: {kinds}",
    )
