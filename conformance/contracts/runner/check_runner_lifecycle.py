"""Runner lifecycle: close() while a run is active and while idle, runs refused after close, and a second run on a
busy runner refused instead of interleaved; for the Responses and the Decisions runners, sync and async.

spec/000 "Streaming and interrupted actions" (close and busy paragraphs); spec/002 "Close and cancel work".

A run is held open by its executor, which waits for the check to release it, so "active" is a fact of the
timeline, not a timing guess. A refused run is judged on its own cassette transport: nothing may be sent on it.

On the Node SDK (``--sdk=node``) the same checks drive the npm ``openai``'s runners: the scenario's Node runner
(:class:`~conformance.contracts.runner._node_scenario.NodeScenarioRunner`) and a Node Decisions runner
(:class:`~conformance.node.sdk.decisions.NodeDecisionsRunner`), whose ``close()`` the d.ts declares with the same
``closed``/``draining`` statuses. The first run waits in Node on a Python thread while the check acts from outside.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from openai.lib.decisions_tool_runner import AsyncDecisionsToolRunner, DecisionsToolRunner

from conformance import cassettes
from conformance.assertions import expect
from conformance.contracts.runner._scenario import Function, ScenarioRun, Setup, load
from conformance.fake_responses import CassetteTransport, fake_async_client, fake_client
from conformance.flavours import Flavour
from conformance.node.sdk.broker import Later
from conformance.rig import Mode
from conformance.rig.decisions import flavours

# Upper bound for a held executor; reached only when a check never releases it (a check bug or a hung runner).
HOLD_LIMIT = 10.0
PARAMS = {"model": "gpt-test", "input": "hi"}
DECISIONS_PARAMS = {"model": "gpt-test", "input": "Review the document"}


class Probe:
    """What a second run attempted on the same runner did: whether it was refused and what it sent."""

    def __init__(self, cassette: str) -> None:
        self.transport = CassetteTransport(cassettes.bundled(cassette), match="endpoint")
        self.error: BaseException | None = None

    def refused(self, clause: str, when: str) -> None:
        expect(self.error is not None, clause, f"a run started {when} was accepted")
        expect(self.transport.sent == [], clause, f"a run started {when} sent {len(self.transport.sent)} requests")


# ------------------------------------------------------------------------------------------ Responses runner


def _held_responses(flavour: Flavour) -> tuple[ScenarioRun, Any]:
    held = Function("lookup", hold=HOLD_LIMIT, hold_until="release")
    harness = ScenarioRun(load("one-function"), Setup(functions=(held,)), Mode.of(flavour, "plain"))
    return harness, harness.build_runner()


def _second_responses_run(runner: Any, flavour: Flavour) -> Probe:
    probe = Probe("never-served")
    try:
        if flavour == "node":
            runner.run(probe.transport, dict(PARAMS))
        elif flavour == "sync":
            runner.run(fake_client(probe.transport), dict(PARAMS))
        else:
            asyncio.run(runner.run(fake_async_client(probe.transport), dict(PARAMS)))
    except Exception as error:
        probe.error = error
    return probe


def _while_active(flavour: Flavour, during: Callable[[Any], None]) -> tuple[ScenarioRun, Any, BaseException | None]:
    """Run one-function on a held runner and call ``during(runner)`` once its executor is running; returns the
    harness, the first run's response and its error."""
    harness, runner = _held_responses(flavour)
    outcome: dict[str, Any] = {"response": None, "error": None}

    def first() -> None:
        try:
            if flavour == "node":
                outcome["response"] = runner.run()
            elif flavour == "sync":
                outcome["response"] = runner.run(fake_client(harness.transport), dict(PARAMS))
            else:
                outcome["response"] = asyncio.run(runner.run(fake_async_client(harness.transport), dict(PARAMS)))
        except BaseException as error:
            outcome["error"] = error

    # The first run gets its own thread (and, async, its own event loop), so the check acts from outside it.
    thread = threading.Thread(target=first, daemon=True)
    thread.start()
    try:
        _wait_for(harness, "call:lookup:c1")
        during(runner)
    finally:
        harness.timeline.add("release")
        thread.join(HOLD_LIMIT * 2)
    return harness, outcome["response"], outcome["error"]


def _wait_for(harness: ScenarioRun, entry: str) -> None:
    done = threading.Event()
    for _ in range(int(HOLD_LIMIT / 0.005)):
        if harness.timeline.has(entry):
            return
        done.wait(0.005)
    raise AssertionError(f"the run never reached {entry}: {harness.timeline.entries}")


@pytest.mark.clause("RN-LIFE-001")
@pytest.mark.parametrize("flavour", flavours())
def test_responses_runner_close_drains_then_refuses(flavour: Flavour) -> None:
    statuses: list[object] = []
    probes: list[Probe] = []

    def close_and_try(runner: Any) -> None:
        statuses.append(runner.close())
        probes.append(_second_responses_run(runner, flavour))

    harness, _, _ = _while_active(flavour, close_and_try)
    expect(statuses == [{"status": "draining"}], "RN-LIFE-001", f"close() during a run returned {statuses}")
    probes[0].refused("RN-LIFE-001", "after close()")
    idle_harness, idle = _held_responses(flavour)
    expect(idle.close() == {"status": "closed"}, "RN-LIFE-001", "close() on an idle runner did not say closed")
    _second_responses_run(idle, flavour).refused("RN-LIFE-001", "on a closed idle runner")
    expect(idle_harness.transport.sent == [], "RN-LIFE-001", "closing sent a request")
    expect(harness.timeline.calls().count("c1") == 1, "RN-LIFE-001", f"calls: {harness.timeline.calls()}")


@pytest.mark.clause("RN-LIFE-001")
@pytest.mark.parametrize("flavour", flavours())
def test_responses_runner_is_closed_after_its_run_ends(flavour: Flavour) -> None:
    # close() asked once the run is over (draining is only for an active run).
    runners: list[Any] = []
    _while_active(flavour, runners.append)
    status = runners[0].close()
    expect(status == {"status": "closed"}, "RN-LIFE-001", f"close() after the run ended returned {status}")


@pytest.mark.clause("RN-LIFE-003")
@pytest.mark.parametrize("flavour", flavours())
def test_responses_runner_refuses_a_second_run_while_busy(flavour: Flavour) -> None:
    probes: list[Probe] = []
    harness, response, error = _while_active(
        flavour, lambda runner: probes.append(_second_responses_run(runner, flavour))
    )
    probes[0].refused("RN-LIFE-003", "while another run was active")
    expect(error is None, "RN-LIFE-003", f"the first run was disturbed: {error!r}")
    expect(harness.timeline.calls() == ["c1"], "RN-LIFE-003", f"calls: {harness.timeline.calls()}")
    expect(len(harness.transport.sent) == 2, "RN-LIFE-003", f"first run requests: {len(harness.transport.sent)}")
    expect(getattr(response, "output_text", None) == "Done.", "RN-LIFE-003", "the first run did not finish")


# ------------------------------------------------------------------------------------------ Decisions runner


class _HeldDecisions:
    """A Decisions runner of ``flavour`` whose review executor waits until released."""

    def __init__(self, flavour: Flavour) -> None:
        self.flavour = flavour
        self.started = threading.Event()
        self.release = threading.Event()
        self.transport = CassetteTransport(cassettes.bundled("decisions-act-then-done"), match="endpoint")

        def review() -> None:
            self.started.set()
            self.release.wait(HOLD_LIMIT)

        def review_in_node() -> Later:
            # Held off the bridge's ordered callback thread, so the check's close() and second run get through.
            self.started.set()

            def held() -> None:
                self.release.wait(HOLD_LIMIT)

            return Later(held)

        async def review_async() -> None:
            self.started.set()
            while not self.release.is_set():
                await asyncio.sleep(0.005)

        def candidates(observation: Any) -> list[dict[str, Any]]:
            return [
                {"id": "review", "description": "Mark reviewed", "execute": review},
                {"id": "done", "description": "Already reviewed", "done": True},
            ]

        async def candidates_async(observation: Any) -> list[dict[str, Any]]:
            return [
                {"id": "review", "description": "Mark reviewed", "execute": review_async},
                {"id": "done", "description": "Already reviewed", "done": True},
            ]

        async def observe_async() -> str:
            return "page"

        def candidates_in_node(observation: Any) -> list[dict[str, Any]]:
            return [
                {"id": "review", "description": "Mark reviewed", "execute": review_in_node},
                {"id": "done", "description": "Already reviewed", "done": True},
            ]

        self.runner: Any
        if flavour == "node":
            from conformance.node.sdk.decisions import NodeDecisionsRunner

            self.runner = NodeDecisionsRunner(observe=lambda: "page", candidates=candidates_in_node)
        elif flavour == "sync":
            self.runner = DecisionsToolRunner(observe=lambda: "page", candidates=candidates)  # type: ignore[arg-type]
        else:
            self.runner = AsyncDecisionsToolRunner(observe=observe_async, candidates=candidates_async)  # type: ignore[arg-type]

    def run(self, transport: CassetteTransport) -> Any:
        if self.flavour == "node":
            result, error = self.runner.run(transport, dict(DECISIONS_PARAMS))
            if error is not None:
                raise error
            return result
        if self.flavour == "sync":
            return self.runner.run(fake_client(transport), dict(DECISIONS_PARAMS))
        return asyncio.run(self.runner.run(fake_async_client(transport), dict(DECISIONS_PARAMS)))

    def second(self) -> Probe:
        probe = Probe("decisions-done")
        try:
            self.run(probe.transport)
        except Exception as error:
            probe.error = error
        return probe

    def while_active(self, during: Callable[[], None]) -> tuple[Any, BaseException | None]:
        outcome: dict[str, Any] = {"result": None, "error": None}

        def first() -> None:
            try:
                outcome["result"] = self.run(self.transport)
            except BaseException as error:
                outcome["error"] = error

        thread = threading.Thread(target=first, daemon=True)
        thread.start()
        try:
            expect(self.started.wait(HOLD_LIMIT), "RN-LIFE-002", "the Decisions executor never started")
            during()
        finally:
            self.release.set()
            thread.join(HOLD_LIMIT * 2)
        return outcome["result"], outcome["error"]


@pytest.mark.clause("RN-LIFE-002")
@pytest.mark.parametrize("flavour", flavours())
def test_decisions_runner_close_drains_then_refuses(flavour: Flavour) -> None:
    held = _HeldDecisions(flavour)
    statuses: list[object] = []
    probes: list[Probe] = []

    def close_and_try() -> None:
        statuses.append(held.runner.close())
        probes.append(held.second())

    held.while_active(close_and_try)
    expect(statuses == [{"status": "draining"}], "RN-LIFE-002", f"close() during a run returned {statuses}")
    probes[0].refused("RN-LIFE-002", "after close()")
    expect(held.runner.close() == {"status": "closed"}, "RN-LIFE-002", "close() after the run did not say closed")
    idle = _HeldDecisions(flavour)
    expect(idle.runner.close() == {"status": "closed"}, "RN-LIFE-002", "close() on an idle runner did not say closed")
    idle.second().refused("RN-LIFE-002", "on a closed idle runner")


@pytest.mark.clause("RN-LIFE-003")
@pytest.mark.parametrize("flavour", flavours())
def test_decisions_runner_refuses_a_second_run_while_busy(flavour: Flavour) -> None:
    held = _HeldDecisions(flavour)
    probes: list[Probe] = []
    result, error = held.while_active(lambda: probes.append(held.second()))
    probes[0].refused("RN-LIFE-003", "while another Decisions run was active")
    expect(error is None, "RN-LIFE-003", f"the first run was disturbed: {error!r}")
    expect(
        isinstance(result, dict) and result.get("completed_candidate_ids") == ["review"],
        "RN-LIFE-003",
        f"first run result: {result!r}",
    )
