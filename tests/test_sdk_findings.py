"""Every new SDK check can fail: each test patches one misbehaviour into the installed SDK and requires the
check to fail on exactly its clause (and the unpatched SDK to pass the same case, unless a known deviation).

The patches are the kind of regression each check exists for: a lenient argument decoder, a status check
dropped, an incomplete response taken as complete, retries switched off, checkpoints missing a record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import openai._base_client as base_client
import openai.lib.browser as browser_module
import openai.lib.decisions_tool_runner as dtr
import openai.lib.responses_tool_runner as rtr
import pytest
from openai.lib.streaming.responses import ResponseStream
from openai.lib.streaming.responses._responses import ResponseStreamState

from conformance.assertions import ClauseViolation
from conformance.contracts.runner import (
    check_decisions_observations,
    check_exact_booleans,
    check_ledger,
    check_live_streams,
)
from conformance.contracts.toolset import check_state_properties
from conformance.rig import parse_mode as _mode
from tests.broken.sdk_patches import cut_stream_as_complete


def _body(check: Any) -> Callable[..., None]:
    """The body of a property check, for one chosen case (the patched misbehaviour must fail it)."""
    body: Callable[..., None] = check.hypothesis.inner_test
    return body


@pytest.fixture(autouse=True)
def _fresh_outcomes() -> Iterator[None]:
    # The live checks cache one run per scenario and mode; a patched SDK must not reuse an unpatched run.
    check_live_streams._outcome.cache_clear()
    yield
    check_live_streams._outcome.cache_clear()


def _fails_on(clause: str, check: Callable[[], None]) -> None:
    with pytest.raises(ClauseViolation) as caught:
        check()
    assert caught.value.clause_id == clause, f"failed on {caught.value.clause_id}, expected {clause}: {caught.value}"


def _live(cassette: str, mode_id: str) -> Callable[[], None]:
    scenario = check_live_streams.BY_NAME[cassette]
    return lambda: check_live_streams.test_live_stream_outcome(scenario, _mode(mode_id))


def _wrap(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, before: Callable[..., Any]) -> None:
    """Replace ``owner.name`` with a version that lets ``before`` adjust the arguments first."""
    original = getattr(owner, name)

    def patched(*args: Any, **kwargs: Any) -> Any:
        args, kwargs = before(*args, **kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, patched)


@pytest.mark.parametrize("mode_id", ["sync-plain", "async-eager"])
def test_lenient_argument_decoder_fails_rn_stream_009(monkeypatch: pytest.MonkeyPatch, mode_id: str) -> None:
    _live("live-arguments-invalid", mode_id)()
    check_live_streams._outcome.cache_clear()
    monkeypatch.setattr(rtr, "_function_args", lambda call: {"reference": call.call_id})
    _fails_on("RN-STREAM-009", _live("live-arguments-invalid", mode_id))


def test_running_unfinished_calls_fails_rn_stream_008(monkeypatch: pytest.MonkeyPatch) -> None:
    _live("live-call-in-progress", "sync-plain")()
    check_live_streams._outcome.cache_clear()

    def finished(run: Any, item: Any, seen: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if getattr(item, "status", None) == "in_progress":
            item.status = "completed"
        return (run, item, seen), {}

    _wrap(monkeypatch, rtr._Run, "validate", finished)
    _fails_on("RN-STREAM-008", _live("live-call-in-progress", "sync-plain"))


def test_acting_on_an_incomplete_response_fails_rn_stream_010(monkeypatch: pytest.MonkeyPatch) -> None:
    _live("live-response-incomplete", "async-plain")()
    check_live_streams._outcome.cache_clear()

    def complete(run: Any, response: Any, **kwargs: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        response.status = "completed"
        return (run, response), kwargs

    _wrap(monkeypatch, rtr._Run, "preflight", complete)
    _fails_on("RN-STREAM-010", _live("live-response-incomplete", "async-plain"))


def test_no_retries_fails_rn_stream_012(monkeypatch: pytest.MonkeyPatch) -> None:
    _live("live-http-error-then-retry", "sync-stream")()
    check_live_streams._outcome.cache_clear()
    monkeypatch.setattr(base_client.BaseClient, "_should_retry", lambda self, response: False)
    _fails_on("RN-STREAM-012", _live("live-http-error-then-retry", "sync-stream"))


def _edit_checkpoints(monkeypatch: pytest.MonkeyPatch, edit: Callable[[dict[str, Any]], None]) -> None:
    original = rtr._Run.checkpoint

    def patched(run: Any, phase: Any, response: Any = None) -> Any:
        value = dict(original(run, phase, response))
        edit(value)
        return value

    monkeypatch.setattr(rtr._Run, "checkpoint", patched)


@pytest.mark.parametrize("mode_id", ["sync-plain-ledger", "async-eager-ledger"])
def test_pending_listing_as_the_save_before_fails_rn_ledger_005(monkeypatch: pytest.MonkeyPatch, mode_id: str) -> None:
    check_ledger.test_saves_surround_each_effect(_mode(mode_id))

    def only_returned_are_attempted(value: dict[str, Any]) -> None:
        # The call stays listed in pending_items, which the old check took as a save before dispatch.
        value["attempted_call_ids"] = list(value["returned_call_ids"])

    _edit_checkpoints(monkeypatch, only_returned_are_attempted)
    _fails_on("RN-LEDGER-005", lambda: check_ledger.test_saves_surround_each_effect(_mode(mode_id)))


@pytest.mark.parametrize("mode_id", ["sync-stream-ledger", "async-plain-ledger"])
def test_ids_without_outputs_as_the_save_after_fails_rn_ledger_006(
    monkeypatch: pytest.MonkeyPatch, mode_id: str
) -> None:
    def ids_only(value: dict[str, Any]) -> None:
        # returned_call_ids stays, which the old check took as a save after the effect.
        value["returned_outputs"] = []

    _edit_checkpoints(monkeypatch, ids_only)
    _fails_on("RN-LEDGER-006", lambda: check_ledger.test_saves_surround_each_effect(_mode(mode_id)))


def test_truthy_verification_fails_rn_dec_001(monkeypatch: pytest.MonkeyPatch) -> None:
    check_exact_booleans.test_truthy_verify_never_verifies("sync", "yes")
    _wrap(monkeypatch, dtr._Run, "verified", lambda run, value, **kw: ((run, bool(value)), kw))
    _fails_on("RN-DEC-001", lambda: check_exact_booleans.test_truthy_verify_never_verifies("sync", "yes"))


def test_truthy_mcp_answer_fails_rn_mcp_007(monkeypatch: pytest.MonkeyPatch) -> None:
    check_exact_booleans.test_truthy_mcp_answer_never_grants(_mode("sync-plain"), "one")

    def coerce(run: Any, item: Any, approve: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (run, item, lambda request: bool(approve(request))), {}

    # A static method: the wrapper must stay one too, or the runner would pass itself as the run.
    original = rtr.ResponsesToolRunner.__dict__["_approve_mcp"].__func__
    monkeypatch.setattr(
        rtr.ResponsesToolRunner,
        "_approve_mcp",
        staticmethod(lambda run, item, approve: original(*coerce(run, item, approve)[0])),
    )
    _fails_on(
        "RN-MCP-007", lambda: check_exact_booleans.test_truthy_mcp_answer_never_grants(_mode("sync-plain"), "one")
    )


def test_truthy_done_flag_fails_rn_dec_009(monkeypatch: pytest.MonkeyPatch) -> None:
    check_exact_booleans.test_truthy_done_flag_is_not_a_done_candidate("sync", "one")

    def truthy_done(runner: Any, *args: Any, candidates: Any, **kwargs: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        def coerced(observation: Any) -> Any:
            return [{**item, "done": True} if item.get("done") else item for item in candidates(observation)]

        return (runner, *args), {**kwargs, "candidates": coerced}

    _wrap(monkeypatch, dtr.DecisionsToolRunner, "__init__", truthy_done)
    _fails_on("RN-DEC-009", lambda: check_exact_booleans.test_truthy_done_flag_is_not_a_done_candidate("sync", "one"))


def test_truthy_computer_flag_fails_rn_early_007(monkeypatch: pytest.MonkeyPatch) -> None:
    check_exact_booleans.test_truthy_computer_flag_fails_construction("async", "yes")

    def coerce(early: Any, tools: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return ({**early, "computer": bool(early.get("computer"))}, tools), {}

    _wrap(monkeypatch, rtr, "_early_execution", coerce)
    _fails_on("RN-EARLY-007", lambda: check_exact_booleans.test_truthy_computer_flag_fails_construction("async", "yes"))


def _edit_state(monkeypatch: pytest.MonkeyPatch, edit: Callable[[dict[str, Any]], None]) -> None:
    original = browser_module._state

    def patched(value: object, previous: Any = None) -> Any:
        state = original(value, previous)
        edit(state)
        return state

    monkeypatch.setattr(browser_module, "_state", patched)


def test_path_left_in_legacy_origins_fails_ts_res_016(monkeypatch: pytest.MonkeyPatch) -> None:
    check = _body(check_state_properties.test_both_forms_report_the_same_origin)
    case = ("https://user@a-1.example:8080/p?q#f", "https://a-1.example:8080")
    check("sync", case=case)
    monkeypatch.setattr(browser_module, "_legacy_tab_url", lambda url: url)
    _fails_on("TS-RES-016", lambda: check("sync", case=case))


def test_shortened_tab_ids_fail_ts_res_017(monkeypatch: pytest.MonkeyPatch) -> None:
    check = _body(check_state_properties.test_tab_ids_are_reported_unchanged_in_both_forms)
    check("async", tab_id="é" * 60)

    def shorten(state: dict[str, Any]) -> None:
        for tab in state["tabs"]:
            tab["id"] = tab["id"][:32]

    _edit_state(monkeypatch, shorten)
    _fails_on("TS-RES-017", lambda: check("async", tab_id="é" * 60))


def test_titles_cut_short_of_the_limit_fail_ts_res_013(monkeypatch: pytest.MonkeyPatch) -> None:
    check = _body(check_state_properties.test_titles_are_kept_or_cut_at_the_limit)
    check("sync", title="x" * 1024)

    def cut_early(state: dict[str, Any]) -> None:
        if "observation" in state:
            for tab in state["tabs"]:
                tab["title"] = tab["title"][:1000]

    _edit_state(monkeypatch, cut_early)
    _fails_on("TS-RES-013", lambda: check("sync", title="x" * 1024))


def test_dropped_image_parts_fail_rn_dec_010(monkeypatch: pytest.MonkeyPatch) -> None:
    check_decisions_observations.test_documented_observation_forms_are_sent_as_given("sync", "text-and-image")

    def without_images(run: Any, observation: Any) -> Any:
        owned = original(run, observation)
        return owned if isinstance(owned, str) else [part for part in owned if part["type"] != "input_image"]

    original = dtr._Run.own
    monkeypatch.setattr(dtr._Run, "own", without_images)
    _fails_on(
        "RN-DEC-010",
        lambda: check_decisions_observations.test_documented_observation_forms_are_sent_as_given(
            "sync", "text-and-image"
        ),
    )


def test_unchecked_parts_fail_rn_dec_011(monkeypatch: pytest.MonkeyPatch) -> None:
    check_decisions_observations.test_unsupported_observation_parts_are_never_sent("async", "file-id-image")
    monkeypatch.setattr(dtr._Run, "own", lambda run, observation: observation)
    _fails_on(
        "RN-DEC-011",
        lambda: check_decisions_observations.test_unsupported_observation_parts_are_never_sent(
            "async", "file-id-image"
        ),
    )


def test_shared_observation_fails_rn_dec_012(monkeypatch: pytest.MonkeyPatch) -> None:
    check_decisions_observations.test_runner_sends_its_own_snapshot("sync")
    monkeypatch.setattr(dtr, "deepcopy", lambda value: value)
    monkeypatch.setattr(dtr._Run, "own", lambda run, observation: observation)
    _fails_on("RN-DEC-012", lambda: check_decisions_observations.test_runner_sends_its_own_snapshot("sync"))


def test_taking_a_cut_stream_as_complete_fails_rn_stream_011(monkeypatch: pytest.MonkeyPatch) -> None:
    _live("live-cut-mid-event", "sync-stream")()
    check_live_streams._outcome.cache_clear()
    original = ResponseStream.get_final_response

    def accumulated(stream: Any) -> Any:
        # The regression: a stream that ended early is taken as the response, its unfinished items as done.
        try:
            return original(stream)
        except RuntimeError:
            return cut_stream_as_complete(stream)

    monkeypatch.setattr(ResponseStream, "get_final_response", accumulated)
    _fails_on("RN-STREAM-011", _live("live-cut-mid-event", "sync-stream"))


def test_hidden_delta_events_fail_rn_stream_007(monkeypatch: pytest.MonkeyPatch) -> None:
    mode = _mode("async-stream")
    check_live_streams.test_on_event_sees_every_lifecycle_event(mode)
    original = ResponseStreamState.handle_event

    def without_deltas(state: Any, event: Any) -> Any:
        return [fired for fired in original(state, event) if not fired.type.endswith(".delta")]

    monkeypatch.setattr(ResponseStreamState, "handle_event", without_deltas)
    _fails_on("RN-STREAM-007", lambda: check_live_streams.test_on_event_sees_every_lifecycle_event(mode))
