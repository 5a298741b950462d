"""context_budget in detail: how input bytes are measured, what the receipt and summary messages are and that they
count, that reasoning stays, that the ledger keeps what a request left out, a dropped ID coming back, the snapshot
being a copy, async policies, None meaning no budget, the budget not outliving its invocation, and input the
budget mode refuses to read.

spec/000 "Bound the native input sent on each request"; spec/002 "Stream and resume".
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

import pytest

from conformance.assertions import expect
from conformance.contracts.runner._node_scenario import NodeCustomInput
from conformance.contracts.runner._scenario import (
    Function,
    Mode,
    ScenarioRun,
    Setup,
    dropping_every_eligible_call,
    input_summary,
    load,
    modes,
    run,
)

BIG: Final = "x" * 500
# Non-ASCII output: escaped (\\u...) or spaced JSON would measure more bytes than compact UTF-8 JSON.
WIDE: Final = "é€😀 " * 60
SUMMARY: Final = "Older output kept by the app."


def _budget(compact: Any, max_bytes: int = 1100) -> dict[str, Any]:
    budget: dict[str, Any] = {"max_input_bytes": max_bytes, "max_input_images": 5}
    if compact is not None:
        budget["compact"] = compact
    return budget


def _drop(*call_ids: str, summary: str | None = SUMMARY) -> Any:
    def compact(snapshot: Any) -> Any:
        decision: dict[str, Any] = {"drop_call_ids": list(call_ids)}
        if summary is not None:
            decision["summary"] = summary
        return decision

    return compact


def _setup(compact: Any, max_bytes: int = 1100, reply: str = BIG, **options: Any) -> Setup:
    return Setup(
        functions=(Function("lookup", reply=reply),),
        run_options={"context_budget": _budget(compact, max_bytes), **options},
    )


def _compact_bytes(items: list[dict[str, Any]]) -> int:
    return len(json.dumps(items, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def _user_texts(items: list[dict[str, Any]]) -> list[str]:
    texts = []
    for item in items:
        if item.get("role") != "user":
            continue
        content = item.get("content")
        texts.append(content if isinstance(content, str) else json.dumps(content, ensure_ascii=False))
    return texts


@pytest.mark.clause("RN-BUDGET-011")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_input_bytes_are_compact_utf8_json(mode: Mode) -> None:
    # The second request's input, as an unbudgeted run sends it, measured the documented way.
    plain = run("context-budget", Setup(functions=(Function("lookup", reply=WIDE),)), mode)
    expect(plain.error is None and len(plain.requests) == 3, "RN-BUDGET-011", f"plain run: {plain.error!r}")
    size = _compact_bytes(plain.input_of(1))
    snapshots: list[Any] = []

    def record(snapshot: Any) -> Any:
        snapshots.append({"input_bytes": snapshot["input_bytes"], "eligible": list(snapshot["eligible_call_ids"])})
        return {"drop_call_ids": []}

    at_limit = run("context-budget", _setup(record, size, WIDE), mode)
    expect(
        len(at_limit.requests) >= 2 and at_limit.input_of(1) == plain.input_of(1),
        "RN-BUDGET-011",
        f"input of exactly max_input_bytes={size} compact UTF-8 bytes was not sent as is",
    )
    expect(
        not snapshots or snapshots[0]["input_bytes"] > size,
        "RN-BUDGET-011",
        f"the policy was called for input within the limit: {snapshots[:1]} (limit {size})",
    )
    snapshots.clear()
    below = run("context-budget", _setup(record, size - 1, WIDE), mode)
    expect(
        len(below.requests) == 1 and snapshots,
        "RN-BUDGET-011",
        f"input one byte over the limit was not held for the policy ({len(below.requests)} requests)",
    )
    expect(
        snapshots[0]["input_bytes"] == size,
        "RN-BUDGET-011",
        f"input_bytes {snapshots[0]['input_bytes']} is not the compact UTF-8 JSON size {size}",
    )


@pytest.mark.clause("RN-BUDGET-012")
@pytest.mark.parametrize("mode", modes())
def test_receipt_names_the_function_and_the_summary_stands_apart(mode: Mode) -> None:
    outcome = run("context-budget", _setup(_drop("c1")), mode).finished("RN-BUDGET-012")
    texts = _user_texts(outcome.input_of(2))
    receipts = [text for text in texts if "c1" in text]
    summaries = [text for text in texts if SUMMARY in text]
    expect(len(receipts) == 1, "RN-BUDGET-012", f"no single receipt message names c1: {texts}")
    expect("lookup" in receipts[0], "RN-BUDGET-012", f"the receipt does not name the function: {receipts[0]!r}")
    expect(
        len(summaries) == 1 and summaries[0] not in receipts,
        "RN-BUDGET-012",
        f"the summary is not a user message of its own: {texts}",
    )


@pytest.mark.clause("RN-BUDGET-013")
@pytest.mark.parametrize("mode", modes())
def test_receipt_and_summary_count_against_the_limit(mode: Mode) -> None:
    # Dropping c1 alone brings the input under the limit; the long summary takes it over again.
    fits = run("context-budget", _setup(_drop("c1", summary="short")), mode)
    expect(fits.error is None, "RN-BUDGET-013", f"control run with a short summary failed: {fits.error!r}")
    outcome = run("context-budget", _setup(_drop("c1", summary="s" * 1500)), mode)
    expect(outcome.error is not None, "RN-BUDGET-013", "a summary taking the input over the limit was sent")
    expect(len(outcome.requests) == 2, "RN-BUDGET-013", f"{len(outcome.requests)} requests sent, expected 2")


@pytest.mark.clause("RN-BUDGET-014")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_ledger_keeps_the_full_history(mode: Mode) -> None:
    outcome = run("context-budget", _setup(_drop("c1")), mode).finished("RN-BUDGET-014")
    sent = input_summary(outcome.input_of(2))
    expect(not any(":c1:" in line for line in sent), "RN-BUDGET-002", f"c1 still sent: {sent}")
    late = [checkpoint for checkpoint in outcome.checkpoints if checkpoint["consumed_requests"] >= 3]
    expect(late, "RN-BUDGET-014", "no checkpoint saved after the compacted request")
    for checkpoint in late:
        history = input_summary(checkpoint["history"])
        expect(
            "function_call:c1:lookup" in history and f"function_call_output:c1:{BIG[:60]}" in history,
            "RN-BUDGET-014",
            f"a {checkpoint['phase']} checkpoint lost the dropped call: {history}",
        )


@pytest.mark.clause("RN-BUDGET-015")
@pytest.mark.parametrize("mode", modes())
def test_reasoning_is_never_dropped(mode: Mode) -> None:
    snapshots: list[list[str]] = []

    def everything(snapshot: Any) -> Any:
        snapshots.append(list(snapshot["eligible_call_ids"]))
        return {"drop_call_ids": list(snapshot["eligible_call_ids"])}

    outcome = run("context-budget-reasoning", _setup(everything, 1300), mode)
    expect(snapshots, "RN-BUDGET-015", "the policy was never asked")
    expect("rs_1" not in snapshots[0], "RN-BUDGET-015", f"reasoning offered for dropping: {snapshots[0]}")
    if len(outcome.requests) >= 3:
        kept = [item for item in outcome.input_of(2) if item.get("type") == "reasoning"]
        expect(
            [item.get("id") for item in kept] == ["rs_1"],
            "RN-BUDGET-015",
            f"the compacted request lost the reasoning item: {input_summary(outcome.input_of(2))}",
        )
    else:
        expect(False, "RN-BUDGET-015", f"the compacted request was not sent: {outcome.error!r}")


@pytest.mark.clause("RN-BUDGET-016")
@pytest.mark.parametrize("mode", modes())
def test_dropped_call_id_coming_back_stops_the_run(mode: Mode) -> None:
    outcome = run("context-budget-reused-id", _setup(_drop("c1")), mode)
    expect(len(outcome.requests) == 3, "RN-BUDGET-016", f"{len(outcome.requests)} requests, expected 3")
    expect(outcome.error is not None, "RN-BUDGET-016", "a response reusing dropped call ID c1 was accepted")
    expect(
        outcome.timeline.calls() == ["c1", "c2"],
        "RN-BUDGET-016",
        f"calls: {outcome.timeline.calls()} (the reused c1 ran again)",
    )


@pytest.mark.clause("RN-BUDGET-017")
@pytest.mark.parametrize("mode", modes())
def test_snapshot_edits_change_nothing(mode: Mode) -> None:
    def vandal(snapshot: Any) -> Any:
        for item in snapshot["history"]:
            if item.get("type") == "function_call_output":
                item["output"] = "edited by the policy"
        snapshot["history"].clear()
        snapshot["eligible_call_ids"].clear()
        return {"drop_call_ids": ["c1"]}

    outcome = run("context-budget", _setup(vandal), mode).finished("RN-BUDGET-017")
    sent = input_summary(outcome.input_of(2))
    expect(
        "user:hi" in sent and f"function_call_output:c2:{BIG[:60]}" in sent,
        "RN-BUDGET-017",
        f"edits to the snapshot reached the request: {sent}",
    )


@pytest.mark.clause("RN-BUDGET-018")
@pytest.mark.parametrize("mode", [mode for mode in modes() if mode.values[0].flavour != "sync"])
def test_async_runner_awaits_an_async_policy(mode: Mode) -> None:
    # On the Node SDK the policy is an async function: every Python callable reaches Node as a function returning a
    # promise, which the runner must await (the Node scenario awaits the coroutine on the Python side).
    async def compact(snapshot: Any) -> Any:
        return {"drop_call_ids": ["c1"], "summary": SUMMARY}

    outcome = run("context-budget", _setup(compact), mode)
    expect(outcome.error is None, "RN-BUDGET-018", f"an awaitable decision was not accepted: {outcome.error!r}")
    sent = input_summary(outcome.input_of(2))
    expect(not any(":c1:" in line for line in sent), "RN-BUDGET-018", f"the awaited decision was not applied: {sent}")


@pytest.mark.clause("RN-BUDGET-019")
@pytest.mark.parametrize("mode", modes())
def test_none_budget_is_no_budget(mode: Mode) -> None:
    without = run("context-budget", Setup(functions=(Function("lookup", reply=BIG),)), mode)
    with_none = run(
        "context-budget", Setup(functions=(Function("lookup", reply=BIG),), run_options={"context_budget": None}), mode
    )
    expect(with_none.error is None, "RN-BUDGET-019", f"context_budget=None failed: {with_none.error!r}")
    expect(
        with_none.bodies == without.bodies,
        "RN-BUDGET-019",
        "context_budget=None sent other requests than omitting it",
    )


@pytest.mark.clause("RN-BUDGET-020")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_resume_without_budget_sends_the_full_history(mode: Mode) -> None:
    harness = ScenarioRun(load("context-budget-resume"), _setup(_drop("c1")), mode)
    first = harness.run()
    expect(first.error is not None, "RN-BUDGET-020", "run 1 must stop on the HTTP 500")
    compacted = input_summary(first.input_of(2))
    expect(not any(":c1:" in line for line in compacted), "RN-BUDGET-002", f"c1 sent in run 1: {compacted}")
    boundaries = [checkpoint for checkpoint in first.checkpoints if checkpoint["phase"] == "boundary"]
    expect(boundaries, "RN-LEDGER-003", "run 1 saved no boundary to resume from")
    harness.checkpoints.clear()
    sent_before = len(harness.transport.sent)
    second = harness.run(
        params={"model": "gpt-test", "input": "continue"},
        ledger=harness.ledger(resume_from=boundaries[-1]),
        context_budget=None,
    )
    expect(second.error is None, "RN-BUDGET-020", f"resume failed: {second.error!r}")
    resumed = harness.transport.sent[sent_before:]
    expect(len(resumed) == 1, "RN-BUDGET-020", f"the resume sent {len(resumed)} requests")
    body: dict[str, Any] = resumed[0].body or {}
    summary = input_summary(list(body["input"]))
    expect(
        "function_call:c1:lookup" in summary and f"function_call_output:c1:{BIG[:60]}" in summary,
        "RN-BUDGET-020",
        f"the resumed request without a budget left out the dropped call: {summary}",
    )
    expect(
        not any(SUMMARY in text for text in _user_texts(list(body["input"]))),
        "RN-BUDGET-020",
        "the resumed request without a budget still carries the summary",
    )


class _CustomInput:
    """A list-like input that is not a built-in list; records every read."""

    def __init__(self) -> None:
        self.reads: list[str] = []
        self._items = [{"role": "user", "content": "hi"}]

    def __iter__(self) -> Iterator[Any]:
        self.reads.append("iter")
        return iter(self._items)

    def __len__(self) -> int:
        self.reads.append("len")
        return len(self._items)

    def __getitem__(self, index: int) -> Any:
        self.reads.append("getitem")
        return self._items[index]


@pytest.mark.clause("RN-BUDGET-021")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_budget_refuses_custom_input_containers_unread(mode: Mode) -> None:
    custom: _CustomInput | NodeCustomInput
    if mode.flavour == "node":
        # A Python container cannot cross to Node as itself: a Node run gets a list-like Node object that is no Array.
        custom = NodeCustomInput([{"role": "user", "content": "hi"}])
        setup = _setup(_drop("c1")).with_params(input=custom.input)
    else:
        custom = _CustomInput()
        setup = _setup(_drop("c1")).with_params(input=custom)
    outcome = run("one-function", setup, mode)
    expect(outcome.error is not None, "RN-BUDGET-021", "a custom input container was accepted in budget mode")
    expect(outcome.requests == [], "RN-BUDGET-021", f"{len(outcome.requests)} requests sent")
    expect(custom.reads == [], "RN-BUDGET-021", f"the container was read before the refusal: {custom.reads}")


@pytest.mark.clause("RN-BUDGET-022")
@pytest.mark.parametrize("mode", modes(ledger=False))
def test_unanswered_call_stops_before_the_policy(mode: Mode) -> None:
    asked: list[Any] = []
    compact = dropping_every_eligible_call(asked)
    dangling = [
        {"role": "user", "content": "y" * 1500},
        {
            "type": "function_call",
            "call_id": "c0",
            "name": "lookup",
            "arguments": json.dumps({"reference": "c0"}),
            "id": "fc_c0",
            "status": "completed",
        },
    ]
    setup = _setup(compact).with_params(input=dangling)
    outcome = run("one-function", setup, mode)
    expect(asked == [], "RN-BUDGET-022", "the policy was called with an unanswered call in the input")
    expect(outcome.error is not None, "RN-BUDGET-022", "input with an unanswered call was compacted and run")
    expect(outcome.requests == [], "RN-BUDGET-022", f"{len(outcome.requests)} requests sent")
