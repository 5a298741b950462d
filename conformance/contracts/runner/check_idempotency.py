"""Idempotency keys across the turns of a Responses or Decisions run, read from the fake transport's headers.

spec/000 "Mix browser, computer, and ordinary functions": with a fixed idempotency key supplied by the caller,
the first request of a Responses or Decisions run uses it, every later turn gets a fresh key, and an HTTP retry
of one request keeps that request's key.

How a caller fixes the key in openai 3.x: the ``Idempotency-Key`` header, given as a client request option
(``client.with_options(default_headers=...)``, which the same document names for request options) or, for the
Responses runner without a ledger, as a per-run native option (``extra_headers`` in the run params; the
documents say ledger runs accept a narrower set of options, and 3.57.0 refuses request overrides there).

Retries are exercised only where the client's automatic retries apply: a ledger run in 3.57.0 sends its
requests with ``max_retries=0`` (responses_tool_runner.py builds ``client.with_options(max_retries=0)`` when a
ledger is given). Whether ledger runs retry is left open by the documents (OQ-001 in ``driverkit clauses
--open-questions``), so ledger modes are covered by the first-request and later-turn checks only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai._base_client
import pytest

from conformance.assertions import expect
from conformance.contracts.runner._scenario import Mode, ScenarioRun, Setup, load, modes
from conformance.flavours import FLAVOURS, Flavour
from conformance.rig.decisions import run_decisions

HEADER = "Idempotency-Key"
CALLER_KEY = "caller-fixed-key-0001"
MECHANISMS = ("client-options", "run-params")


@pytest.fixture
def no_retry_backoff(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The fake transport sends no Retry-After, so the client would sleep its exponential backoff (about half a
    # second) before each retry; the backoff length is not what these checks are about.
    monkeypatch.setattr(openai._base_client, "INITIAL_RETRY_DELAY", 0.0)
    yield


def _setup(mechanism: str, header: str = HEADER, **fields: Any) -> Setup:
    if mechanism == "client-options":
        return Setup(client_options={"default_headers": {header: CALLER_KEY}}, **fields)
    return Setup(**fields).with_params(extra_headers={header: CALLER_KEY})


def _mechanism_modes() -> list[Any]:
    """Every mode with the client option; per-run extra_headers only where a ledger does not forbid them."""
    params = []
    for mechanism in MECHANISMS:
        for param in modes(ledger=None if mechanism == "client-options" else False):
            mode = param.values[0]
            params.append(pytest.param(mode, mechanism, id=f"{mode.id}-{mechanism}"))
    return params


def _keys(requests: list[Any]) -> list[str | None]:
    return [request.headers.get(HEADER.lower()) for request in requests]


def _expect_fresh(keys: list[str | None], clause: str) -> None:
    later = keys[1:]
    expect(all(key for key in later), clause, f"a later request carries no key: {keys}")
    expect(CALLER_KEY not in later, clause, f"a later turn reused the caller's key: {keys}")
    expect(len(set(later)) == len(later), clause, f"later turns share a key: {keys}")


# ------------------------------------------------------------------------------------------ Responses runner


@pytest.mark.clause("RN-IDEM-001", "RN-IDEM-002")
# HTTP header names are case-insensitive, so a caller spelling the name in lower case supplies the same key.
@pytest.mark.parametrize("header", [HEADER, HEADER.lower()], ids=["canonical-name", "lower-case-name"])
@pytest.mark.parametrize("mode,mechanism", _mechanism_modes())
def test_caller_key_on_first_request_then_fresh_keys(mode: Mode, mechanism: str, header: str) -> None:
    outcome = (
        ScenarioRun(load("idempotency-three-turns"), _setup(mechanism, header), mode).run().finished("RN-IDEM-001")
    )
    keys = _keys(outcome.requests)
    expect(len(keys) == 3, "RN-IDEM-002", f"{len(keys)} requests, expected 3")
    expect(keys[0] == CALLER_KEY, "RN-IDEM-001", f"first request key {keys[0]!r}, expected the caller's")
    _expect_fresh(keys, "RN-IDEM-002")


@pytest.mark.clause("RN-IDEM-001", "RN-IDEM-002")
@pytest.mark.parametrize("mode", modes())
def test_iterated_turns_get_fresh_keys(mode: Mode) -> None:
    # iterate() pauses between turns; each advance is still a later turn of the same run.
    outcome = (
        ScenarioRun(load("idempotency-three-turns"), _setup("client-options"), mode)
        .iterate(lambda turn: None)
        .finished("RN-IDEM-001")
    )
    keys = _keys(outcome.requests)
    expect(len(keys) == 3, "RN-IDEM-002", f"{len(keys)} requests, expected 3")
    expect(keys[0] == CALLER_KEY, "RN-IDEM-001", f"first request key {keys[0]!r}, expected the caller's")
    _expect_fresh(keys, "RN-IDEM-002")


@pytest.mark.clause("RN-IDEM-001", "RN-IDEM-002")
@pytest.mark.parametrize("mode", modes(ledger=True))
def test_resumed_ledger_run_sends_fresh_keys(mode: Mode) -> None:
    # A resumed run continues the saved run (its request budget and history carry over, spec/002 "Stream and
    # resume"), so its requests are later turns: none may reuse the caller's key or an earlier request's key,
    # which could let the server answer with a response stored for a different request.
    setup = _setup("client-options", run_options={"max_steps": 4})
    harness = ScenarioRun(load("ledger-resume"), setup, mode)
    first = harness.run()
    boundaries = [checkpoint for checkpoint in first.checkpoints if checkpoint["phase"] == "boundary"]
    expect(first.error is not None and bool(boundaries), "RN-IDEM-002", "the first run left no boundary to resume")
    sent_before = len(harness.transport.sent)
    second = harness.run(
        params={"model": "gpt-test", "input": "continue"}, ledger=harness.ledger(resume_from=boundaries[-1])
    )
    expect(second.error is None, "RN-IDEM-002", f"resume failed: {second.error!r}")
    # The transport keeps every request of both runs: the first run's, then the resumed run's.
    keys = _keys(second.requests)
    expect(keys[0] == CALLER_KEY, "RN-IDEM-001", f"first request key {keys[0]!r}, expected the caller's")
    expect(len(keys) - sent_before == 2, "RN-IDEM-002", f"{len(keys) - sent_before} resumed requests, expected 2")
    _expect_fresh(keys, "RN-IDEM-002")


@pytest.mark.clause("RN-IDEM-001", "RN-IDEM-002", "RN-IDEM-003")
@pytest.mark.parametrize("mode,mechanism", [param for param in _mechanism_modes() if not param.values[0].ledger])
def test_http_retry_repeats_the_request_key(mode: Mode, mechanism: str, no_retry_backoff: None) -> None:
    # Exchanges: 500, call, 500, answer. With max_retries=1 each 500 is retried once: requests 0/1 are one
    # request (the first), 2/3 another (the second turn).
    outcome = (
        ScenarioRun(load("idempotency-retries"), _setup(mechanism, max_retries=1), mode).run().finished("RN-IDEM-003")
    )
    keys = _keys(outcome.requests)
    expect(len(keys) == 4, "RN-IDEM-003", f"{len(keys)} requests, expected 2 requests each sent twice")
    expect(keys[0] == CALLER_KEY, "RN-IDEM-001", f"first request key {keys[0]!r}, expected the caller's")
    expect(keys[1] == keys[0], "RN-IDEM-003", f"retry of the first request changed its key: {keys}")
    expect(keys[3] == keys[2], "RN-IDEM-003", f"retry of the second request changed its key: {keys}")
    _expect_fresh([keys[0], keys[2]], "RN-IDEM-002")


# ------------------------------------------------------------------------------------------ Decisions runner


@pytest.mark.clause("RN-IDEM-001", "RN-IDEM-002")
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_decisions_caller_key_on_first_request_then_fresh_keys(flavour: Flavour) -> None:
    # review, done (verification fails), review, done (verified): four Decisions requests.
    answers = iter([False, True])
    outcome = run_decisions(
        "decisions-review-twice",
        flavour,
        verify=lambda observation: next(answers),
        client_options={"default_headers": {HEADER: CALLER_KEY}},
    ).finished("RN-IDEM-001")
    keys = outcome.header(HEADER)
    expect(len(keys) == 4, "RN-IDEM-002", f"{len(keys)} requests, expected 4")
    expect(keys[0] == CALLER_KEY, "RN-IDEM-001", f"first request key {keys[0]!r}, expected the caller's")
    _expect_fresh(keys, "RN-IDEM-002")


@pytest.mark.clause("RN-IDEM-001", "RN-IDEM-002", "RN-IDEM-003")
@pytest.mark.parametrize("flavour", FLAVOURS)
def test_decisions_http_retry_repeats_the_request_key(flavour: Flavour, no_retry_backoff: None) -> None:
    outcome = run_decisions(
        "decisions-idempotency-retries",
        flavour,
        client_options={"default_headers": {HEADER: CALLER_KEY}},
        max_retries=1,
    ).finished("RN-IDEM-003")
    keys = outcome.header(HEADER)
    expect(len(keys) == 4, "RN-IDEM-003", f"{len(keys)} requests, expected 2 requests each sent twice")
    expect(keys[0] == CALLER_KEY, "RN-IDEM-001", f"first request key {keys[0]!r}, expected the caller's")
    expect(keys[1] == keys[0], "RN-IDEM-003", f"retry of the first request changed its key: {keys}")
    expect(keys[3] == keys[2], "RN-IDEM-003", f"retry of the second request changed its key: {keys}")
    _expect_fresh([keys[0], keys[2]], "RN-IDEM-002")
