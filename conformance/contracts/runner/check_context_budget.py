"""context_budget: policy calls, eligible IDs, receipts, pinned items, and failures that stop before a request.

spec/000 "Bound the native input sent on each request".
"""

from __future__ import annotations

from typing import Any

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import (
    Function,
    Mode,
    Setup,
    dropping_every_eligible_call,
    input_summary,
    modes,
    run,
)

BIG = "x" * 500


def _budget(compact: Any, max_bytes: int = 1100) -> dict[str, Any]:
    budget: dict[str, Any] = {"max_input_bytes": max_bytes, "max_input_images": 5}
    if compact is not None:
        budget["compact"] = compact
    return budget


@pytest.mark.clause("RN-BUDGET-001", "RN-BUDGET-002")
@pytest.mark.parametrize("mode", modes())
def test_policy_drops_eligible_call_with_receipt(mode: Mode) -> None:
    snapshots: list[Any] = []

    def compact(snapshot: Any) -> Any:
        snapshots.append(snapshot)
        snapshot["eligible_call_ids"].append("tampered")  # a copy: must not reach the runner
        return {"drop_call_ids": ["c1"], "summary": "Older output kept by the app."}

    setup = Setup(functions=(Function("lookup", reply=BIG),), run_options={"context_budget": _budget(compact)})
    outcome = run("context-budget", setup, mode).finished("RN-BUDGET-002")
    expect(len(snapshots) == 1, "RN-BUDGET-001", f"policy called {len(snapshots)} times for one over-limit request")
    expect(
        snapshots[0]["eligible_call_ids"][:2] == ["c1", "c2"],
        "RN-BUDGET-001",
        f"eligible: {snapshots[0]['eligible_call_ids']}",
    )
    third = outcome.input_of(2)
    summary = input_summary(third)
    expect(not any(":c1:" in line for line in summary), "RN-BUDGET-002", f"dropped call still sent: {summary}")
    texts = " ".join(str(item.get("content")) for item in third if item.get("role") == "user")
    expect(
        "c1" in texts and "Older output kept by the app." in texts,
        "RN-BUDGET-002",
        "receipt naming c1 and the caller summary must be sent",
    )
    kept = [line for line in summary if line.startswith(("user:hi", "function_call"))]
    expect(
        kept == ["user:hi", "function_call:c2:lookup", f"function_call_output:c2:{BIG[:60]}"],
        "RN-BUDGET-002",
        f"remaining items out of order: {summary}",
    )
    expect(
        all(body.get("truncation") == "disabled" for body in outcome.bodies),
        "RN-BUDGET-002",
        "budget mode sends truncation disabled when unspecified",
    )


@pytest.mark.clause("RN-BUDGET-003")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_latest_browser_state_is_pinned(mode: Mode) -> None:
    snapshots: list[Any] = []
    setup = Setup(
        browser=("get_page_text",),
        browser_replies={"get_page_text": "y" * 800},
        run_options={"context_budget": _budget(dropping_every_eligible_call(snapshots), 600)},
    )
    outcome = run("context-budget-browser", setup, mode)
    expect(snapshots, "RN-BUDGET-003", "the policy was never asked")
    expect(
        snapshots[0]["eligible_call_ids"] == ["c1"],
        "RN-BUDGET-003",
        f"eligible IDs include pinned items: {snapshots[0]['eligible_call_ids']}",
    )
    expect(
        outcome.error is not None and len(outcome.requests) == 1,
        "RN-BUDGET-004",
        "input still over the limit must stop before the request",
    )


@pytest.mark.clause("RN-BUDGET-004")
@pytest.mark.parametrize(
    "compact",
    [None, lambda snapshot: {"drop_call_ids": ["unknown"]}, lambda snapshot: {"drop_call_ids": []}],
    ids=["missing-policy", "ineligible-id", "still-over"],
)
@pytest.mark.parametrize("mode", modes())
def test_policy_failure_stops_before_request(compact: Any, mode: Mode) -> None:
    setup = Setup(functions=(Function("lookup", reply=BIG),), run_options={"context_budget": _budget(compact)})
    outcome = run("context-budget", setup, mode)
    expect(outcome.error is not None, "RN-BUDGET-004", "the run must stop")
    expect(len(outcome.requests) == 2, "RN-BUDGET-004", f"{len(outcome.requests)} requests sent, expected 2")
    expect(outcome.timeline.calls() == ["c1", "c2"], "RN-BUDGET-004", f"calls: {outcome.timeline.calls()}")
    admissions = [c for c in outcome.checkpoints if c["consumed_requests"] > 2]
    expect(not admissions, "RN-BUDGET-004", "a request admission was saved for the refused request")
