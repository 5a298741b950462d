"""Node's runnerFunction wraps a typed function tool only when the tool carries its callback.

spec/002 "Mix browser actions with other tools": in Node, a zodResponsesFunction or standardResponsesFunction is
wrapped with runnerFunction, and the tool must include its callback (Python's from_tool takes an explicit typed
executor instead, RN-TYPED-001/002).
"""

from __future__ import annotations

import pytest

from conformance.assertions import expect, not_implemented, violation
from conformance.contracts.runner._scenario import LOOKUP_SCHEMA, Mode, modes


@pytest.mark.clause("RN-TYPED-004")
@pytest.mark.parametrize("mode", modes(stream=False, eager=False, ledger=False))
def test_typed_tool_without_its_callback_is_refused(mode: Mode) -> None:
    if mode.flavour != "node":
        not_implemented("runnerFunction over a typed tool is the Node SDK's form; Python's from_tool takes an executor")
    from conformance.node.sdk.broker import shared_sdk

    sdk = shared_sdk()
    tool = {"name": "lookup", "description": "lookup a reference", "schema": LOOKUP_SCHEMA}
    try:
        made = sdk.invoke("typedFunction", {**tool, "execute": lambda arguments: "found"})
    except Exception as error:
        violation("RN-TYPED-004", f"runnerFunction refused a typed tool that has its callback: {error}")
    expect("execute" in made, "RN-TYPED-004", f"runnerFunction over a complete typed tool gave {made!r:.200}")
    try:
        refused = sdk.invoke("typedFunction", {**tool, "execute": None})
    except Exception:
        return
    violation("RN-TYPED-004", f"runnerFunction accepted a typed tool without its callback: {refused!r:.200}")
